//! E6: A has K = 64 and B has K = 128.

use tessel::prelude::*;

#[kernel(grid = (1))]
fn k_mismatch() {
    run_scoped(|acc: Acc<f32, 64, 64>, a_s: Smem<bf16, 64, 64, Swizzle128>, b_s: Smem<bf16, 128, 64, Swizzle128>| {
        wgmma(acc, a_s, b_s);
    });
}

fn main() {}
