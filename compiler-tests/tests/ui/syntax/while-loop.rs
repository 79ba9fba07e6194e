//! `while` loops are not in the language (`for i in a..b` is).

use tessel::prelude::*;

#[kernel(grid = (1))]
fn spin(n: i32) {
    let mut i = 0;
    while i < n {
        i += 1;
    }
}

fn main() {}
