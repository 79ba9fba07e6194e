//! E9: an i8 B stored [K, N] (MN-major); 8-bit operands must be K-major ([N, K] and `.t()`).

use tessel::prelude::*;

#[kernel(grid = (1))]
fn i8_b_mn_major() {
    run_scoped(|acc: Acc<i32, 64, 128>, a_s: Smem<i8, 64, 128, Swizzle128>, b_s: Smem<i8, 128, 128, Swizzle128>| {
        wgmma(acc, a_s, b_s);
    });
}

fn main() {}
