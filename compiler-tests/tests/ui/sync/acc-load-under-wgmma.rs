//! S4: each K step waits for the previous step's wgmma at its top, so the last step's wgmma may
//! still be writing the accumulator when it is read after the loop. Underlines `acc`.

use tessel::prelude::*;

#[kernel(grid = (M / 64, N / 64))]
fn gemm(a: Gmem<bf16, M, K>, b: Gmem<bf16, K, N>, c: GmemMut<f32, M, N>) {
    let (i, j) = (program_id(0), program_id(1));
    run_scoped(
        |acc: Acc<f32, 64, 64>,
         a_s: Smem<bf16, 64, 64, Swizzle128>,
         b_s: Smem<bf16, 64, 64, Swizzle128>,
         bar: Barrier<2>| {
            for k in 0..K / 64 {
                wgmma_wait(0);
                copy_gmem_to_smem(a.tile([i, k]), a_s, bar);
                copy_gmem_to_smem(b.tile([k, j]), b_s, bar);
                barrier_wait(bar);
                wgmma(acc, a_s, b_s);
            }
            c.tile([i, j]).store(acc.load());
        },
    );
}

fn main() {}
