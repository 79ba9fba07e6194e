//! tessel: a register load's tiles cover a static global dimension exactly.

use tessel::prelude::*;

#[kernel(grid = (2, 2))]
fn ragged_rows(x: Gmem<f32, 100, 128>, y: GmemMut<f32, 100, 128>) {
    let (i, j) = (program_id(0), program_id(1));
    let v = x.tile([i, j], [64, 64]).load(Layout::Wgmma);
    y.tile([i, j]).store(v);
}

fn main() {}
