//! S1: the wgmma reads `a_s` before the wait that says its copy landed (B's copy was waited
//! for). Underlines `a_s`.

use tessel::prelude::*;

#[kernel(grid = (M / 64, N / 64))]
fn gemm(a: Gmem<bf16, M, K>, b: Gmem<bf16, K, N>, c: GmemMut<f32, M, N>) {
    let (i, j) = (program_id(0), program_id(1));
    run_scoped(
        |acc: Acc<f32, 64, 64>,
         a_s: Smem<bf16, 64, 64, Swizzle128>,
         b_s: Smem<bf16, 64, 64, Swizzle128>,
         bar: Barrier<1>| {
            copy_gmem_to_smem(b.tile([0, j]), b_s, bar);
            barrier_wait(bar);
            copy_gmem_to_smem(a.tile([i, 0]), a_s, bar);
            wgmma(acc, a_s, b_s);
            barrier_wait(bar);
            wgmma_wait(0);
            c.tile([i, j]).store(acc.load());
        },
    );
}

fn main() {}
