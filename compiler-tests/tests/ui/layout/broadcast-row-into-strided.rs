//! C5: a row vector of the WGMMA layout broadcast into the strided layout.

use tessel::prelude::*;

#[kernel(grid = (1))]
fn broadcast_strided(x: Gmem<f32, 64, 64>) {
    let row_max = x.tile([0, 0], [64, 64]).load(Layout::Wgmma).max(1);
    let wide = row_max.broadcast([64, 64], Layout::Strided);
}

fn main() {}
