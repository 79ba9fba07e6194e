//! Several independent errors of one kernel, reported together in one build: SEED 000 (u8
//! accumulator), E15 (a swizzle wider than the buffer), SEED 003 (a bf16 value into an f32
//! accumulator) and an unsupported `while` loop.

use tessel::prelude::*;

#[kernel(grid = (M / 64, N / 64))]
fn many_mistakes(a: Gmem<bf16, M, K>, b: Gmem<bf16, K, N>, c: GmemMut<f32, M, N>) {
    run_scoped(|acc: Acc<u8, 64, 64>, a_s: Smem<bf16, 64, 32, Swizzle128>| {});
    run_scoped(|acc: Acc<f32, 64, 64>| {
        let update = splat::<bf16>(1.0, [64, 64]);
        acc.store(update);
    });
    while true {}
}

fn main() {}
