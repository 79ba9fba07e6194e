//! E3: fp8 operands with an i32 accumulator.

use tessel::prelude::*;

#[kernel(grid = (1))]
fn e4m3_acc_i32() {
    run_scoped(
        |acc: Acc<i32, 64, 64>, a_s: Smem<f8e4m3, 64, 128, Swizzle128>, b_s: Smem<f8e4m3, 64, 128, Swizzle128>| {
            wgmma(acc, a_s, b_s.t());
        },
    );
}

fn main() {}
