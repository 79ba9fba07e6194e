//! A bias of one value per column loaded as a row vector (`Layout::WgmmaRow`): its 128 values
//! cannot give the 64 rows of [64, 128] one value each; the help names `Layout::WgmmaCol`.

use tessel::prelude::*;

#[kernel(grid = (M / 64))]
fn add_bias(x: Gmem<f32, M, 128>, bias: Gmem<f32, 128>, y: GmemMut<f32, M, 128>) {
    let i = program_id(0);
    let v = x.tile([i, 0], [64, 128]).load(Layout::Wgmma);
    let b = bias.tile([0], [128]).load(Layout::WgmmaRow);
    y.tile([i, 0], [64, 128]).store(v + b.broadcast([64, 128], Layout::Wgmma));
}

fn main() {}
