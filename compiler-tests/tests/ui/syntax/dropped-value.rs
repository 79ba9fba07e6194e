//! tessel: a register array computed and dropped.

use tessel::prelude::*;

#[kernel(grid = (1))]
fn dropped() {
    splat::<f32>(1.0, [64, 64]);
}

fn main() {}
