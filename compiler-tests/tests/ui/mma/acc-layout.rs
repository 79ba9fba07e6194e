//! D8 (acc): the accumulator is in the WGMMA layout, not the mma accumulator fragments.

use tessel::prelude::*;

#[kernel(grid = (1))]
fn acc_layout() {
    run_scoped(|a_s: Smem<bf16, 64, 16>, b_s: Smem<bf16, 16, 64>| {
        let acc = splat::<f32>(0.0, [64, 64]).to_layout(Layout::Wgmma);
        let out = mma(acc, a_s.load(Layout::MmaLhs), b_s.load(Layout::MmaRhs));
    });
}

fn main() {}
