//! A ReLU written the Rust way, `(v + b).max(0.0)`: `.max(axis)` reduces along an axis, and the
//! elementwise maximum is `max(x, y)`.

use tessel::prelude::*;

#[kernel(grid = (M / 64))]
fn relu(x: Gmem<f32, M, 64>, b: Gmem<f32, M, 64>, y: GmemMut<f32, M, 64>) {
    let i = program_id(0);
    let v = x.tile([i, 0], [64, 64]).load(Layout::Wgmma);
    let bias = b.tile([i, 0], [64, 64]).load(Layout::Wgmma);
    y.tile([i, 0], [64, 64]).store((v + bias).max(0.0));
}

fn main() {}
