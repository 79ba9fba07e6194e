//! tessel: a loop counter is a 32-bit register; an `i64` bound needs `as i32`.

use tessel::prelude::*;

#[kernel(grid = (1))]
fn wide_bound(n: i64) {
    for k in 0..n {}
}

fn main() {}
