//! C4: an elementwise product of arrays of different shapes.

use tessel::prelude::*;

#[kernel(grid = (1))]
fn mixed_shapes(x: Gmem<f32, 64, 128>) {
    let wide = x.tile([0, 0], [64, 128]).load(Layout::Wgmma);
    let narrow = x.tile([0, 0], [64, 64]).load(Layout::Wgmma);
    let product = wide * narrow;
}

fn main() {}
