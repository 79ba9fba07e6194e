//! C2: a WGMMA row vector has no conversion to the strided layout.

use tessel::prelude::*;

#[kernel(grid = (1))]
fn row_to_strided(x: Gmem<f32, 64, 64>) {
    let v = x.tile([0, 0], [64, 64]).load(Layout::Wgmma);
    let row = v.sum(1).to_layout(Layout::Strided);
}

fn main() {}
