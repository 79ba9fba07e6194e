//! D3: a bf16 mma with an f16 accumulator.

use tessel::prelude::*;

#[kernel(grid = (1))]
fn bf16_acc_f16() {
    run_scoped(|a_s: Smem<bf16, 64, 16>, b_s: Smem<bf16, 16, 64>| {
        let acc = splat::<f16>(0.0, [64, 64]).to_layout(Layout::MmaAcc);
        let out = mma(acc, a_s.load(Layout::MmaLhs), b_s.load(Layout::MmaRhs));
    });
}

fn main() {}
