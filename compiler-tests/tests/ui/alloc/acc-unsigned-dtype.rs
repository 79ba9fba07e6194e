//! SEED 000: an accumulator allocated with an unsigned dtype. PTX integer WGMMA accumulates in s32,
//! so the help says `i32` (not the `int8` of Pallas's own advice).

use tessel::prelude::*;

#[kernel(grid = (M / 64, N / 64))]
fn int8_gemm(a: Gmem<i8, M, K>, bt: Gmem<i8, N, K>) {
    run_scoped(|acc: Acc<u8, 64, 64>| {});
}

fn main() {}
