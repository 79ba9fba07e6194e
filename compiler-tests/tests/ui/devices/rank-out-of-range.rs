//! tessel: a constant rank outside the group of `devices = 4`.

use tessel::prelude::*;

#[kernel(grid = (M / 64), devices = 4)]
fn to_last(x: Gmem<f32, M, 64>, #[peers] buf: GmemMut<f32, M, 64>) {
    let i = program_id(0);
    remote(buf, 4).tile([i, 0], [64, 64]).store(x.tile([i, 0], [64, 64]).load(Layout::Strided));
}

fn main() {}
