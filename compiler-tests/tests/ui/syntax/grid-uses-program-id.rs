//! tessel: the grid is computed on the host at launch, where `program_id` does not exist.

use tessel::prelude::*;

#[kernel(grid = (M / 64, program_id(0)))]
fn self_referential(x: Gmem<f32, M, 64>) {}

fn main() {}
