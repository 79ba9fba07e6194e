//! tessel: an integer literal without a suffix is an `i32`, and 3000000000 does not fit one.

use tessel::prelude::*;

#[kernel(grid = (1))]
fn wide_loop() {
    for k in 0..3000000000 {}
}

fn main() {}
