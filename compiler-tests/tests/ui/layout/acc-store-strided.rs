//! SEED 004: a row-major (`Layout::Strided`) register array stored into an accumulator without
//! `to_layout(Layout::Wgmma)`.

use tessel::prelude::*;

#[kernel(grid = (1))]
fn store_strided(bias: Gmem<f32, 64, 64>) {
    run_scoped(|acc: Acc<f32, 64, 64>| {
        let rows = bias.tile([0, 0], [64, 64]).load(Layout::Strided);
        acc.store(rows);
    });
}

fn main() {}
