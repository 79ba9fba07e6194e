//! tessel: a `#[peers]` parameter in a kernel of one device.

use tessel::prelude::*;

#[kernel(grid = (M / 64))]
fn copy(x: Gmem<f32, M, 64>, #[peers] y: GmemMut<f32, M, 64>) {
    let i = program_id(0);
    y.tile([i, 0], [64, 64]).store(x.tile([i, 0], [64, 64]).load(Layout::Strided));
}

fn main() {}
