//! tessel: `.atomic_add` of a value of another shape than the tile's, as a store checks it.

use tessel::prelude::*;

#[kernel(grid = (M / 64))]
fn add_half(x: Gmem<f32, M, 64>, y: GmemMut<f32, 64, 64>) {
    let i = program_id(0);
    y.tile([0, 0], [64, 64]).atomic_add(x.tile([i, 0], [64, 32]).load(Layout::Wgmma));
}

fn main() {}
