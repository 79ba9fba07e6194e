//! S4 on windows: the wgmma writes the left half of the accumulator, and the read of columns
//! 32..96 overlaps it. Underlines the window.

use tessel::prelude::*;

#[kernel(grid = (M / 64, N / 128))]
fn halves(a: Gmem<bf16, M, 64>, b: Gmem<bf16, 64, N>, c: GmemMut<f32, M, N>) {
    let (i, j) = (program_id(0), program_id(1));
    run_scoped(
        |acc: Acc<f32, 64, 128>,
         a_s: Smem<bf16, 64, 64, Swizzle128>,
         b_s: Smem<bf16, 64, 64, Swizzle128>,
         bar: Barrier<2>| {
            copy_gmem_to_smem(a.tile([i, 0]), a_s, bar);
            copy_gmem_to_smem(b.tile([0, 2 * j]), b_s, bar);
            barrier_wait(bar);
            wgmma(acc.slice([.., 0..64]), a_s, b_s);
            c.tile([i, 2 * j], [64, 64]).store(acc.slice([.., 32..96]).load());
            wgmma_wait(0);
        },
    );
}

fn main() {}
