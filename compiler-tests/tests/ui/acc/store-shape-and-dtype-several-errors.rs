//! B2 and SEED 003 together: a value wrong in both shape and dtype stored into an accumulator
//! reports the shape first, as Mosaic GPU does, then the dtype.

use tessel::prelude::*;

#[kernel(grid = (1))]
fn store_half(x: Gmem<bf16, 64, 128>) {
    run_scoped(|acc: Acc<f32, 64, 128>| {
        let half = x.tile([0, 0], [64, 64]).load(Layout::Wgmma);
        acc.store(half);
    });
}

fn main() {}
