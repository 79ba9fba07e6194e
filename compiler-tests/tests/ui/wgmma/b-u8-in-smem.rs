//! E12: an unsigned B in shared memory (Pallas would silently emit it as s8).

use tessel::prelude::*;

#[kernel(grid = (1))]
fn b_u8_in_smem() {
    run_scoped(|acc: Acc<i32, 64, 64>, a_s: Smem<i8, 64, 128, Swizzle128>, b_s: Smem<u8, 64, 128, Swizzle128>| {
        wgmma(acc, a_s, b_s.t());
    });
}

fn main() {}
