//! E3: f16 operands with an i32 accumulator.

use tessel::prelude::*;

#[kernel(grid = (1))]
fn f16_acc_i32() {
    run_scoped(|acc: Acc<i32, 64, 64>, a_s: Smem<f16, 64, 64, Swizzle128>, b_s: Smem<f16, 64, 64, Swizzle128>| {
        wgmma(acc, a_s, b_s);
    });
}

fn main() {}
