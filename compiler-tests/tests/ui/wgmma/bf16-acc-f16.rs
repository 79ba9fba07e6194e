//! E2: bf16 operands with an f16 accumulator (bf16 WGMMA accumulates in f32 only).

use tessel::prelude::*;

#[kernel(grid = (1))]
fn bf16_acc_f16() {
    run_scoped(|acc: Acc<f16, 64, 64>, a_s: Smem<bf16, 64, 64, Swizzle128>, b_s: Smem<bf16, 64, 64, Swizzle128>| {
        wgmma(acc, a_s, b_s);
    });
}

fn main() {}
