//! D4: f32 operands, which mma.sync does not take.

use tessel::prelude::*;

#[kernel(grid = (1))]
fn f32_operands() {
    run_scoped(|a_s: Smem<f32, 64, 16>, b_s: Smem<f32, 16, 64>| {
        let acc = splat::<f32>(0.0, [64, 64]).to_layout(Layout::MmaAcc);
        let out = mma(acc, a_s.load(Layout::MmaLhs), b_s.load(Layout::MmaRhs));
    });
}

fn main() {}
