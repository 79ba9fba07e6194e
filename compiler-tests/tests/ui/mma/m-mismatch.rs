//! D6 (M): A has fewer rows than the accumulator.

use tessel::prelude::*;

#[kernel(grid = (1))]
fn m_mismatch() {
    run_scoped(|a_s: Smem<bf16, 32, 16>, b_s: Smem<bf16, 16, 64>| {
        let acc = splat::<f32>(0.0, [64, 64]).to_layout(Layout::MmaAcc);
        let out = mma(acc, a_s.load(Layout::MmaLhs), b_s.load(Layout::MmaRhs));
    });
}

fn main() {}
