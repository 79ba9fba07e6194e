//! S5: A is written to shared memory by registers and read by the wgmma with no `commit_smem()`
//! between: the wgmma (the async proxy) may not see the stores. Underlines `a_s`.

use tessel::prelude::*;

#[kernel(grid = (M / 64, N / 64))]
fn scaled_a(a: Gmem<bf16, M, 64>, b: Gmem<bf16, 64, N>, c: GmemMut<f32, M, N>) {
    let (i, j) = (program_id(0), program_id(1));
    run_scoped(
        |acc: Acc<f32, 64, 64>,
         a_s: Smem<bf16, 64, 64, Swizzle128>,
         b_s: Smem<bf16, 64, 64, Swizzle128>,
         bar: Barrier| {
            copy_gmem_to_smem(b.tile([0, j]), b_s, bar);
            a_s.store(a.tile([i, 0], [64, 64]).load(Layout::Wgmma) * 2.0);
            barrier_wait(bar);
            wgmma(acc, a_s, b_s);
            wgmma_wait(0);
            c.tile([i, j]).store(acc.load());
        },
    );
}

fn main() {}
