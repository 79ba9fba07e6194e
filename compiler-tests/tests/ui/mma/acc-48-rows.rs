//! D7: an accumulator of 48 rows, which is 3 warps along M (a warpgroup splits into 1, 2 or 4).

use tessel::prelude::*;

#[kernel(grid = (1))]
fn acc_48_rows() {
    run_scoped(|a_s: Smem<bf16, 48, 16>, b_s: Smem<bf16, 16, 64>| {
        let acc = splat::<f32>(0.0, [48, 64]).to_layout(Layout::MmaAcc);
        let out = mma(acc, a_s.load(Layout::MmaLhs), b_s.load(Layout::MmaRhs));
    });
}

fn main() {}
