//! D8 (A): A loaded in the strided layout instead of the mma A fragments.

use tessel::prelude::*;

#[kernel(grid = (1))]
fn a_strided() {
    run_scoped(|a_s: Smem<bf16, 64, 16>, b_s: Smem<bf16, 16, 64>| {
        let acc = splat::<f32>(0.0, [64, 64]).to_layout(Layout::MmaAcc);
        let a = a_s.load(Layout::Strided);
        let out = mma(acc, a, b_s.load(Layout::MmaRhs));
    });
}

fn main() {}
