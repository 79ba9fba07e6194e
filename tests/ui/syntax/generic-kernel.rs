//! Kernels are not generic; compile-time parameters go in `consts(..)`.

use tessel::prelude::*;

#[kernel(grid = (1))]
fn tiled<const BK: usize>() {}

fn main() {}
