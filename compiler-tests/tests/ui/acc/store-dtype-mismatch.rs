//! SEED 003: a bf16 value stored into an f32 accumulator.

use tessel::prelude::*;

#[kernel(grid = (1))]
fn store_bf16(x: Gmem<bf16, 64, 64>) {
    run_scoped(|acc: Acc<f32, 64, 64>| {
        let update = x.tile([0, 0], [64, 64]).load(Layout::Wgmma);
        acc.store(update);
    });
}

fn main() {}
