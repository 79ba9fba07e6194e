//! tessel: a tile of a 2-D array indexed with one block index.

use tessel::prelude::*;

#[kernel(grid = (M / 64))]
fn short_index(x: Gmem<f32, M, 64>) {
    let v = x.tile([program_id(0)], [64, 64]).load(Layout::Strided);
}

fn main() {}
