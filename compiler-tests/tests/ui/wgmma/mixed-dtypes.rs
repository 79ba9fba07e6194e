//! E5: A in bf16 and B in f16.

use tessel::prelude::*;

#[kernel(grid = (1))]
fn mixed_dtypes() {
    run_scoped(|acc: Acc<f32, 64, 64>, a_s: Smem<bf16, 64, 64, Swizzle128>, b_s: Smem<f16, 64, 64, Swizzle128>| {
        wgmma(acc, a_s, b_s);
    });
}

fn main() {}
