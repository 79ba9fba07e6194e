//! tessel: `fma` with two arguments.

use tessel::prelude::*;

#[kernel(grid = (1))]
fn short_fma(x: Gmem<f32, 64, 64>, y: GmemMut<f32, 64, 64>) {
    let v = x.tile([0, 0], [64, 64]).load(Layout::Wgmma);
    y.tile([0, 0]).store(fma(v, v));
}

fn main() {}
