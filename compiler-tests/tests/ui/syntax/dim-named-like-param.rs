//! tessel: a runtime dimension named like a scalar parameter (it is read from the array's shape at
//! launch, not from the parameter).

use tessel::prelude::*;

#[kernel(grid = (1))]
fn ambiguous(x: Gmem<f32, n, 64>, n: i32) {}

fn main() {}
