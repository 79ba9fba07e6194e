//! D8 (B): B loaded in the mma A-fragment layout instead of the B fragments.

use tessel::prelude::*;

#[kernel(grid = (1))]
fn b_as_lhs() {
    run_scoped(|a_s: Smem<bf16, 64, 16>, b_s: Smem<bf16, 16, 64>| {
        let acc = splat::<f32>(0.0, [64, 64]).to_layout(Layout::MmaAcc);
        let b = b_s.load(Layout::MmaLhs);
        let out = mma(acc, a_s.load(Layout::MmaLhs), b);
    });
}

fn main() {}
