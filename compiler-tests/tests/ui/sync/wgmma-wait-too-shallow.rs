//! S3 with two groups in flight: `wgmma_wait(1)` completes the first (which read `b0_s`) and
//! leaves the second (which reads `b1_s`) running, and the next tiles of B are copied into both.
//! Underlines the copy into `b1_s`; the help says `wgmma_wait(0)`.

use tessel::prelude::*;

#[kernel(grid = (M / 64, N / 128))]
fn two_halves(a: Gmem<bf16, M, K>, b: Gmem<bf16, K, N>, c: GmemMut<f32, M, N>) {
    let (i, j) = (program_id(0), program_id(1));
    run_scoped(
        |acc: Acc<f32, 64, 128>,
         a_s: Smem<bf16, 64, 64, Swizzle128>,
         b0_s: Smem<bf16, 64, 64, Swizzle128>,
         b1_s: Smem<bf16, 64, 64, Swizzle128>,
         bar: Barrier<3>| {
            copy_gmem_to_smem(a.tile([i, 0]), a_s, bar);
            copy_gmem_to_smem(b.tile([0, 2 * j]), b0_s, bar);
            copy_gmem_to_smem(b.tile([0, 2 * j + 1]), b1_s, bar);
            barrier_wait(bar);
            wgmma(acc.slice([.., 0..64]), a_s, b0_s);
            wgmma(acc.slice([.., 64..128]), a_s, b1_s);
            wgmma_wait(1);
            copy_gmem_to_smem(b.tile([1, 2 * j]), b0_s, bar);
            copy_gmem_to_smem(b.tile([1, 2 * j + 1]), b1_s, bar);
            wgmma_wait(0);
            c.tile([i, j]).store(acc.load());
        },
    );
}

fn main() {}
