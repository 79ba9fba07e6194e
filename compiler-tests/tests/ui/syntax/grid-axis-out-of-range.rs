//! tessel: `program_id` of an axis the grid does not have.

use tessel::prelude::*;

#[kernel(grid = (M / 64))]
fn axis_one(x: Gmem<f32, M, 64>) {
    let j = program_id(1);
}

fn main() {}
