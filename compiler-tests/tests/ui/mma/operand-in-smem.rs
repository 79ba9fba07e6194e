//! tessel: mma takes register arrays; a shared-memory buffer must be loaded first.

use tessel::prelude::*;

#[kernel(grid = (1))]
fn smem_operand() {
    run_scoped(|a_s: Smem<bf16, 64, 16>, b_s: Smem<bf16, 16, 64>| {
        let acc = splat::<f32>(0.0, [64, 64]).to_layout(Layout::MmaAcc);
        let out = mma(acc, a_s.load(Layout::MmaLhs), b_s);
    });
}

fn main() {}
