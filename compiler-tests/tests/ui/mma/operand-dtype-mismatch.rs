//! D5: A and B of different dtypes.

use tessel::prelude::*;

#[kernel(grid = (1))]
fn operand_dtype_mismatch() {
    run_scoped(|a_s: Smem<bf16, 64, 16>, b_s: Smem<f16, 16, 64>| {
        let acc = splat::<f32>(0.0, [64, 64]).to_layout(Layout::MmaAcc);
        let out = mma(acc, a_s.load(Layout::MmaLhs), b_s.load(Layout::MmaRhs));
    });
}

fn main() {}
