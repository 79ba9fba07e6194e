//! tessel: a global array's static dimension is indexable in 32 bits, like a runtime one.

use tessel::prelude::*;

#[kernel(grid = (1))]
fn huge(x: GmemMut<f32, 4294967296, 64>) {}

fn main() {}
