//! WGMMA bf16 x bf16 -> f32 with both operands in 128-byte swizzled shared memory.
// expect: wgmma.fence.sync.aligned
// expect: wgmma.mma_async.sync.aligned.m64n64k16.f32.bf16.bf16
// expect: wgmma.commit_group.sync.aligned
// expect: wgmma.wait_group.sync.aligned 0

use tessel::prelude::*;

#[kernel(grid = (M / 64, N / 64))]
fn wgmma_bf16(a: Gmem<bf16, M, K>, b: Gmem<bf16, K, N>, c: GmemMut<f32, M, N>) {
    let (i, j) = (program_id(0), program_id(1));
    run_scoped(
        |acc: Acc<f32, 64, 64>,
         a_s: Smem<bf16, 64, 64, Swizzle128>,
         b_s: Smem<bf16, 64, 64, Swizzle128>,
         bar: Barrier<2>| {
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
