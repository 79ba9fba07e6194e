//! E7: the accumulator is 64 x 128 but A @ B is 64 x 64.

use tessel::prelude::*;

#[kernel(grid = (1))]
fn acc_shape_mismatch() {
    run_scoped(|acc: Acc<f32, 64, 128>, a_s: Smem<bf16, 64, 64, Swizzle128>, b_s: Smem<bf16, 64, 64, Swizzle128>| {
        wgmma(acc, a_s, b_s);
    });
}

fn main() {}
