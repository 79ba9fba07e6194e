//! S3: a register store rewrites the wgmma's A operand before `wgmma_wait`. Underlines `a_s`.

use tessel::prelude::*;

#[kernel(grid = (M / 64, N / 64))]
fn square(a: Gmem<bf16, M, 64>, b: Gmem<bf16, 64, N>, c: GmemMut<f32, M, N>) {
    let (i, j) = (program_id(0), program_id(1));
    run_scoped(
        |acc: Acc<f32, 64, 64>,
         a_s: Smem<bf16, 64, 64, Swizzle128>,
         b_s: Smem<bf16, 64, 64, Swizzle128>,
         bar: Barrier<2>| {
            copy_gmem_to_smem(a.tile([i, 0]), a_s, bar);
            copy_gmem_to_smem(b.tile([0, j]), b_s, bar);
            barrier_wait(bar);
            wgmma(acc, a_s, b_s);
            a_s.store(splat::<bf16>(0.0, [64, 64]));
            wgmma_wait(0);
            c.tile([i, j]).store(acc.load());
        },
    );
}

fn main() {}
