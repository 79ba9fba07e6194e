//! Several synchronization errors of one kernel, reported together: a wgmma before the wait
//! (S1, twice: both operands), the accumulator read under it (S4), and a TMA store of an
//! uncommitted buffer (S5).

use tessel::prelude::*;

#[kernel(grid = (M / 64, N / 64))]
fn gemm(a: Gmem<bf16, M, 64>, b: Gmem<bf16, 64, N>, c: GmemMut<f32, M, N>) {
    let (i, j) = (program_id(0), program_id(1));
    run_scoped(
        |acc: Acc<f32, 64, 64>,
         a_s: Smem<bf16, 64, 64, Swizzle128>,
         b_s: Smem<bf16, 64, 64, Swizzle128>,
         c_s: Smem<f32, 64, 64>,
         bar: Barrier<2>| {
            copy_gmem_to_smem(a.tile([i, 0]), a_s, bar);
            copy_gmem_to_smem(b.tile([0, j]), b_s, bar);
            wgmma(acc, a_s, b_s);
            barrier_wait(bar);
            c_s.store(acc.load());
            copy_smem_to_gmem(c_s, c.tile([i, j]));
            wgmma_wait(0);
            wait_smem_to_gmem(0);
        },
    );
}

fn main() {}
