//! A generic WGMMA GEMM: every instance of `instances(..)` is its own PTX module, here bf16 with
//! 64-column tiles and f16 with 128-column ones, in that order.
// expect: wgmma.mma_async.sync.aligned.m64n64k16.f32.bf16.bf16
// expect: wgmma.mma_async.sync.aligned.m64n128k16.f32.f16.f16

use tessel::prelude::*;

#[kernel(grid = (M / 64, N / BN), instances((bf16, 64), (f16, 128)))]
fn generic_wgmma<T, const BN: usize>(a: Gmem<T, M, K>, b: Gmem<T, K, N>, c: GmemMut<f32, M, N>) {
    let (i, j) = (program_id(0), program_id(1));
    run_scoped(
        |acc: Acc<f32, 64, BN>, a_s: Smem<T, 64, 64, Swizzle128>, b_s: Smem<T, 64, BN, Swizzle128>, bar: Barrier<2>| {
            for k in 0..K / 64 {
                copy_gmem_to_smem(a.tile([i, k]), a_s, bar);
                copy_gmem_to_smem(b.tile([k, j]), b_s, bar);
                barrier_wait(bar);
                wgmma(acc, a_s, b_s);
                wgmma_wait(0);
            }
            c.tile([i, j]).store(acc.load());
        },
    );
}

fn main() {}
