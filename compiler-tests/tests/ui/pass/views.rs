//! Views of shared memory as WGMMA operands: slices along the unswizzled dimension, `.transpose`
//! permutations of a staged buffer, explicit `Tiled<..>` and `Swizzle<bytes>` transforms, and a
//! 32-byte swizzle.

use tessel::prelude::*;

// One 128 x 64 A tile, consumed as two 64-row slices into two accumulators.
#[kernel(grid = (M / 128, N / 64))]
fn sliced_rows(a: Gmem<bf16, M, K>, b: Gmem<bf16, K, N>, c: GmemMut<f32, M, N>) {
    let (i, j) = (program_id(0), program_id(1));
    run_scoped(
        |top: Acc<f32, 64, 64>,
         bottom: Acc<f32, 64, 64>,
         a_s: Smem<bf16, 128, 64, Swizzle128>,
         b_s: Smem<bf16, 64, 64, Swizzle<128>>,
         bar: Barrier<2>| {
            for k in 0..K / 64 {
                copy_gmem_to_smem(a.tile([i, k]), a_s, bar);
                copy_gmem_to_smem(b.tile([k, j]), b_s, bar);
                barrier_wait(bar);
                wgmma(top, a_s.slice([0..64, ..]), b_s);
                wgmma(bottom, a_s.slice([64..128, ..]), b_s);
                wgmma_wait(0);
            }
            c.tile([2 * i, j], [64, 64]).store(top.load());
            c.tile([2 * i + 1, j], [64, 64]).store(bottom.load());
        },
    );
}

// B staged as [STAGES, N, K] and viewed K-major with a permutation of its last two dimensions.
#[kernel(grid = (M / 64, N / 64), consts(STAGES = 2))]
fn permuted_stages(a: Gmem<f16, M, K>, bt: Gmem<f16, N, K>, c: GmemMut<f32, M, N>) {
    let (i, j) = (program_id(0), program_id(1));
    run_scoped(
        |acc: Acc<f32, 64, 64>,
         a_s: Smem<f16, STAGES, 64, 64, Swizzle128, Tiled<8, 64>>,
         b_s: Smem<f16, STAGES, 64, 64, Swizzle128>,
         bars: Barrier<2, STAGES>| {
            for k in 0..K / 64 {
                let s = k % STAGES;
                copy_gmem_to_smem(a.tile([i, k]), a_s.at(s), bars.at(s));
                copy_gmem_to_smem(bt.tile([j, k]), b_s.at(s), bars.at(s));
                barrier_wait(bars.at(s));
                wgmma(acc, a_s.at(s), b_s.transpose([0, 2, 1]).at(s));
                wgmma_wait(0);
            }
            c.tile([i, j]).store(acc.load());
        },
    );
}

// 32-byte swizzles: 16 bf16 per row, a 64 x 64 tile stored as four 16-wide column blocks.
#[kernel(grid = (M / 64, N / 32))]
fn narrow_swizzle(a: Gmem<bf16, M, K>, b: Gmem<bf16, K, N>, c: GmemMut<f32, M, N>) {
    let (i, j) = (program_id(0), program_id(1));
    run_scoped(
        |acc: Acc<f32, 64, 32>,
         a_s: Smem<bf16, 64, 64, Swizzle32>,
         b_s: Smem<bf16, 64, 32, Swizzle32>,
         bar: Barrier<2>| {
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
