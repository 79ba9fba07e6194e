//! WGMMA e4m3 x e4m3 -> f32, K-major B through `.t()` of an [N, K] buffer.
// expect: wgmma.mma_async.sync.aligned.m64n64k32.f32.e4m3.e4m3
// expect: wgmma.commit_group.sync.aligned

use tessel::prelude::*;

#[kernel(grid = (M / 64, N / 64))]
fn wgmma_fp8(a: Gmem<f8e4m3, M, K>, bt: Gmem<f8e4m3, N, K>, c: GmemMut<f32, M, N>) {
    let (i, j) = (program_id(0), program_id(1));
    run_scoped(
        |acc: Acc<f32, 64, 64>,
         a_s: Smem<f8e4m3, 64, 128, Swizzle128>,
         b_s: Smem<f8e4m3, 64, 128, Swizzle128>,
         bar: Barrier<2>| {
            for k in 0..K / 128 {
                copy_gmem_to_smem(a.tile([i, k]), a_s, bar);
                copy_gmem_to_smem(bt.tile([j, k]), b_s, bar);
                barrier_wait(bar);
                wgmma(acc, a_s, b_s.t());
                wgmma_wait(0);
            }
            c.tile([i, j]).store(acc.load());
        },
    );
}

fn main() {}
