//! E10: B passed in registers (WGMMA reads B from shared memory only).

use tessel::prelude::*;

#[kernel(grid = (1))]
fn b_regs(y: Gmem<bf16, 64, 64>) {
    run_scoped(|acc: Acc<f32, 64, 64>, a_s: Smem<bf16, 64, 64, Swizzle128>| {
        let b = y.tile([0, 0], [64, 64]).load(Layout::Wgmma);
        wgmma(acc, a_s, b);
    });
}

fn main() {}
