//! E13: A swizzled by 128 bytes and B by 64.

use tessel::prelude::*;

#[kernel(grid = (1))]
fn swizzle_mismatch() {
    run_scoped(|acc: Acc<f32, 64, 64>, a_s: Smem<bf16, 64, 64, Swizzle128>, b_s: Smem<bf16, 64, 64, Swizzle64>| {
        wgmma(acc, a_s, b_s);
    });
}

fn main() {}
