//! S1 around a loop's back edge: each turn prefetches the next K step's A tile after its wgmma,
//! so the next turn's wgmma reads it before any wait. Underlines `a_s`.

use tessel::prelude::*;

#[kernel(grid = (M / 64))]
fn gemm(a: Gmem<bf16, M, K>, b: Gmem<bf16, K, 64>, c: GmemMut<f32, M, 64>) {
    let i = program_id(0);
    run_scoped(
        |acc: Acc<f32, 64, 64>,
         a_s: Smem<bf16, 64, 64, Swizzle128>,
         b_s: Smem<bf16, 64, 64, Swizzle128>,
         bar: Barrier| {
            copy_gmem_to_smem(b.tile([0, 0]), b_s, bar);
            barrier_wait(bar);
            copy_gmem_to_smem(a.tile([i, 0]), a_s, bar);
            barrier_wait(bar);
            for k in 0..K / 64 {
                wgmma(acc, a_s, b_s);
                wgmma_wait(0);
                copy_gmem_to_smem(a.tile([i, k + 1]), a_s, bar);
            }
            barrier_wait(bar);
            c.tile([i, 0]).store(acc.load());
        },
    );
}

fn main() {}
