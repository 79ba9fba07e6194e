//! tessel: `.atomic_add` into a `Gmem` array, which is read-only.

use tessel::prelude::*;

#[kernel(grid = (M / 64))]
fn add_read_only(x: Gmem<f32, M, 64>, y: Gmem<f32, 64, 64>) {
    let i = program_id(0);
    y.tile([0, 0], [64, 64]).atomic_add(x.tile([i, 0], [64, 64]).load(Layout::Wgmma));
}

fn main() {}
