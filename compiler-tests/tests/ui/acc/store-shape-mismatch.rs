//! B2: a value of another shape stored into an accumulator.

use tessel::prelude::*;

#[kernel(grid = (1))]
fn store_half(x: Gmem<f32, 64, 128>) {
    run_scoped(|acc: Acc<f32, 64, 128>| {
        let half = x.tile([0, 0], [64, 64]).load(Layout::Wgmma);
        acc.store(half);
    });
}

fn main() {}
