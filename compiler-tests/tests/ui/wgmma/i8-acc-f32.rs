//! E4: i8 operands with an f32 accumulator.

use tessel::prelude::*;

#[kernel(grid = (1))]
fn i8_acc_f32() {
    run_scoped(|acc: Acc<f32, 64, 64>, a_s: Smem<i8, 64, 128, Swizzle128>, b_s: Smem<i8, 64, 128, Swizzle128>| {
        wgmma(acc, a_s, b_s.t());
    });
}

fn main() {}
