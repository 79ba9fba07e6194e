//! tessel: tuple assignment checks each name (declared, `let mut`, same type) and the tuple's length.

use tessel::prelude::*;

#[kernel(grid = (1))]
fn shuffled(n: i32) {
    let (mut i, j) = (0, 1);
    (i, j) = (j, i);
    let mut x = 0.5;
    (i, x) = (x, i);
    (i, x) = (n, 1.0, 2.0);
    (i, y) = (1, 2);
    (i, x.y) = (1, 2);
}

fn main() {}
