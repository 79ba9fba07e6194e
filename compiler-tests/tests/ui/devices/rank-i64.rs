//! tessel: a device rank that is no 32-bit integer.

use tessel::prelude::*;

#[kernel(grid = (M / 64), devices = 2)]
fn push(x: Gmem<f32, M, 64>, #[peers] buf: GmemMut<f32, M, 64>, peer: i64) {
    let i = program_id(0);
    remote(buf, peer).tile([i, 0], [64, 64]).store(x.tile([i, 0], [64, 64]).load(Layout::Strided));
}

fn main() {}
