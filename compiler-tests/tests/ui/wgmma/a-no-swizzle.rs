//! E14: an unswizzled A.

use tessel::prelude::*;

#[kernel(grid = (1))]
fn a_no_swizzle() {
    run_scoped(|acc: Acc<f32, 64, 64>, a_s: Smem<bf16, 64, 64>, b_s: Smem<bf16, 64, 64, Swizzle128>| {
        wgmma(acc, a_s, b_s);
    });
}

fn main() {}
