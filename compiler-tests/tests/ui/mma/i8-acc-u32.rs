//! D2: an i8 mma with an unsigned 32-bit accumulator.

use tessel::prelude::*;

#[kernel(grid = (1))]
fn i8_acc_u32() {
    run_scoped(|a_s: Smem<i8, 64, 32>, b_s: Smem<i8, 32, 64>| {
        let acc = splat::<u32>(0, [64, 64]).to_layout(Layout::MmaAcc);
        let out = mma(acc, a_s.load(Layout::MmaLhs), b_s.load(Layout::MmaRhs));
    });
}

fn main() {}
