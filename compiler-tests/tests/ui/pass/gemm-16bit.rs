//! WGMMA GEMMs over 16-bit operands: bf16 -> f32, f16 -> f32 and f16 -> f16, with operands in both
//! majors (B MN-major as a [K, N] buffer, B K-major through `.t()` of an [N, K] buffer, A MN-major
//! through `Transposed`) and both epilogues (a register store and a TMA store).

use tessel::prelude::*;

// bf16 x bf16 -> f32, cast to bf16 and written back with a TMA store.
#[kernel(grid = (M / 64, N / 128), consts(BK = 64))]
fn gemm_bf16(a: Gmem<bf16, M, K>, b: Gmem<bf16, K, N>, c: GmemMut<bf16, M, N>) {
    let (i, j) = (program_id(0), program_id(1));
    run_scoped(
        |acc: Acc<f32, 64, 128>,
         a_s: Smem<bf16, 64, BK, Swizzle128>,
         b_s: Smem<bf16, BK, 128, Swizzle128>,
         c_s: Smem<bf16, 64, 128, Swizzle128>,
         bar: Barrier<2>| {
            for k in 0..K / BK {
                copy_gmem_to_smem(a.tile([i, k]), a_s, bar);
                copy_gmem_to_smem(b.tile([k, j]), b_s, bar);
                barrier_wait(bar);
                wgmma(acc, a_s, b_s);
                wgmma_wait(0);
            }
            c_s.store(acc.load().cast::<bf16>());
            commit_smem();
            copy_smem_to_gmem(c_s, c.tile([i, j]));
            wait_smem_to_gmem(0);
        },
    );
}

// f16 x f16 -> f32 over 128 rows per warpgroup, B K-major (stored [N, K]); the first K step
// replaces the accumulator's (zero) contents rather than adding to them.
#[kernel(grid = (M / 128, N / 64))]
fn gemm_f16(a: Gmem<f16, M, K>, bt: Gmem<f16, N, K>, c: GmemMut<f32, M, N>) {
    let (i, j) = (program_id(0), program_id(1));
    run_scoped(
        |acc: Acc<f32, 128, 64>,
         a_s: Smem<f16, 128, 64, Swizzle128>,
         b_s: Smem<f16, 64, 64, Swizzle128>,
         bar: Barrier<2>| {
            for k in 0..K / 64 {
                copy_gmem_to_smem(a.tile([i, k]), a_s, bar);
                copy_gmem_to_smem(bt.tile([j, k]), b_s, bar);
                barrier_wait(bar);
                wgmma(acc, a_s, b_s.t(), accumulate = k > 0);
                wgmma_wait(0);
            }
            c.tile([i, j]).store(acc.load());
        },
    );
}

// f16 x f16 -> f16 with A MN-major (stored [K, M]) and 64-byte swizzles.
#[kernel(grid = (M / 64, N / 64))]
fn gemm_f16_acc_f16(at: Gmem<f16, K, M>, b: Gmem<f16, K, N>, c: GmemMut<f16, M, N>) {
    let (i, j) = (program_id(0), program_id(1));
    run_scoped(
        |acc: Acc<f16, 64, 64>,
         a_s: Smem<f16, 64, 64, Swizzle64, Transposed>,
         b_s: Smem<f16, 64, 64, Swizzle64>,
         bar: Barrier<2>| {
            for k in 0..K / 64 {
                copy_gmem_to_smem(at.tile([k, i]), a_s, bar);
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
