//! E11 (layout): A in registers in the strided layout.

use tessel::prelude::*;

#[kernel(grid = (1))]
fn a_strided(x: Gmem<bf16, 64, 64>) {
    run_scoped(|acc: Acc<f32, 64, 64>, b_s: Smem<bf16, 64, 64, Swizzle128>| {
        let a = x.tile([0, 0], [64, 64]).load(Layout::Strided);
        wgmma(acc, a, b_s);
    });
}

fn main() {}
