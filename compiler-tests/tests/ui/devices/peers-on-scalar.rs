//! tessel: `#[peers]` on a scalar parameter: only a global array has a copy on every device.

use tessel::prelude::*;

#[kernel(grid = (M / 64), devices = 2)]
fn scale(x: Gmem<f32, M, 64>, y: GmemMut<f32, M, 64>, #[peers] alpha: f32) {
    let i = program_id(0);
    y.tile([i, 0], [64, 64]).store(x.tile([i, 0], [64, 64]).load(Layout::Strided) * alpha);
}

fn main() {}
