//! A synchronization error inside a kernel function (its epilogue stores the accumulator while the
//! caller's wgmma may still be writing it): reported at the function's token, with a note at the
//! call.

use tessel::prelude::*;

#[kernels]
mod gemm {
    use tessel::prelude::*;

    /// Stores `acc` to the tile (i, j) of `c`.
    fn epilogue(acc: Acc<f32, 64, 64>, c: GmemMut<f32, M, N>, i: i32, j: i32) {
        c.tile([i, j]).store(acc.load());
    }

    #[kernel(grid = (M / 64, N / 64))]
    fn matmul(a: Gmem<bf16, M, 64>, b: Gmem<bf16, 64, N>, c: GmemMut<f32, M, N>) {
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
                epilogue(acc, c, i, j);
            },
        );
    }
}

fn main() {}
