//! C3: an elementwise sum of arrays in two different layouts.

use tessel::prelude::*;

#[kernel(grid = (1))]
fn mixed_layouts(x: Gmem<f32, 64, 64>) {
    let w = x.tile([0, 0], [64, 64]).load(Layout::Wgmma);
    let s = x.tile([0, 0], [64, 64]).load(Layout::Strided);
    let sum = w + s;
}

fn main() {}
