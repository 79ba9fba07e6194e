//! WGMMA over tf32: f32 data in global memory, read as tf32 by the tensor cores (K = 8 per
//! instruction, K-major operands only).

use tessel::prelude::*;

#[kernel(grid = (M / 64, N / 64))]
fn gemm_tf32(a: Gmem<f32, M, K>, bt: Gmem<f32, N, K>, c: GmemMut<f32, M, N>, alpha: f32) {
    let (i, j) = (program_id(0), program_id(1));
    run_scoped(
        |acc: Acc<f32, 64, 64>,
         a_s: Smem<tf32, 64, 32, Swizzle128>,
         b_s: Smem<tf32, 64, 32, Swizzle128>,
         bar: Barrier<2>| {
            for k in 0..K / 32 {
                copy_gmem_to_smem(a.tile([i, k]), a_s, bar);
                copy_gmem_to_smem(bt.tile([j, k]), b_s, bar);
                barrier_wait(bar);
                wgmma(acc, a_s, b_s.t());
                wgmma_wait(0);
            }
            c.tile([i, j]).store(acc.load() * alpha);
        },
    );
}

fn main() {}
