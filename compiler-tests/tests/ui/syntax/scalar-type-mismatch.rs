//! tessel: scalar arithmetic between an f32 and an i32.

use tessel::prelude::*;

#[kernel(grid = (1))]
fn mixed(alpha: f32, n: i32) {
    let scaled = alpha * n;
}

fn main() {}
