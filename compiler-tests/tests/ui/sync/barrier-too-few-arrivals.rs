//! S2: `bar` is declared to complete after three arrivals, and each K step issues two copies on
//! it: the wait never returns. Underlines the wait.

use tessel::prelude::*;

#[kernel(grid = (M / 64, N / 64))]
fn gemm(a: Gmem<bf16, M, K>, b: Gmem<bf16, K, N>, c: GmemMut<f32, M, N>) {
    let (i, j) = (program_id(0), program_id(1));
    run_scoped(
        |acc: Acc<f32, 64, 64>,
         a_s: Smem<bf16, 64, 64, Swizzle128>,
         b_s: Smem<bf16, 64, 64, Swizzle128>,
         bar: Barrier<3>| {
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
