//! Integer WGMMA: i8 x i8 -> i32, K-major B (no scale or transpose immediates in the integer form).
// expect: wgmma.mma_async.sync.aligned.m64n64k32.s32.s8.s8
// expect: wgmma.commit_group.sync.aligned

use tessel::prelude::*;

#[kernel(grid = (M / 64, N / 64))]
fn wgmma_i8(a: Gmem<i8, M, K>, bt: Gmem<i8, N, K>, c: GmemMut<i32, M, N>) {
    let (i, j) = (program_id(0), program_id(1));
    run_scoped(
        |acc: Acc<i32, 64, 64>,
         a_s: Smem<i8, 64, 128, Swizzle128>,
         b_s: Smem<i8, 64, 128, Swizzle128>,
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
