//! Kernels return nothing; results go through `GmemMut` parameters.

use tessel::prelude::*;

#[kernel(grid = (1))]
fn returns() -> i32 {}

fn main() {}
