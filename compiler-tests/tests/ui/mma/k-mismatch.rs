//! D6 (K): A and B disagree on K.

use tessel::prelude::*;

#[kernel(grid = (1))]
fn k_mismatch() {
    run_scoped(|a_s: Smem<bf16, 64, 32>, b_s: Smem<bf16, 16, 64>| {
        let acc = splat::<f32>(0.0, [64, 64]).to_layout(Layout::MmaAcc);
        let out = mma(acc, a_s.load(Layout::MmaLhs), b_s.load(Layout::MmaRhs));
    });
}

fn main() {}
