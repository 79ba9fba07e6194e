//! Warp-level `mma` (mma.sync) over a warpgroup's register fragments: bf16 -> f32 with 4 warps along
//! M, i8 -> i32 with 2, and f16 -> f32 with 1 (all four warps along N).

use tessel::prelude::*;

#[kernel(grid = (M / 64, N / 64))]
fn mma_bf16(a: Gmem<bf16, M, K>, b: Gmem<bf16, K, N>, c: GmemMut<f32, M, N>) {
    let (i, j) = (program_id(0), program_id(1));
    run_scoped(|a_s: Smem<bf16, 64, 32>, b_s: Smem<bf16, 32, 64>, bar: Barrier<2>| {
        let mut acc = splat::<f32>(0.0, [64, 64]).to_layout(Layout::MmaAcc);
        for k in 0..K / 32 {
            copy_gmem_to_smem(a.tile([i, k]), a_s, bar);
            copy_gmem_to_smem(b.tile([k, j]), b_s, bar);
            barrier_wait(bar);
            acc = mma(acc, a_s.load(Layout::MmaLhs), b_s.load(Layout::MmaRhs));
        }
        c.tile([i, j]).store(acc);
    });
}

#[kernel(grid = (M / 32, N / 64))]
fn mma_i8(a: Gmem<i8, M, K>, b: Gmem<i8, K, N>, c: GmemMut<i32, M, N>) {
    let (i, j) = (program_id(0), program_id(1));
    run_scoped(|a_s: Smem<i8, 32, 64>, b_s: Smem<i8, 64, 64>, bar: Barrier<2>| {
        let mut acc = splat::<i32>(0, [32, 64]).to_layout(Layout::MmaAcc);
        for k in 0..K / 64 {
            copy_gmem_to_smem(a.tile([i, k]), a_s, bar);
            copy_gmem_to_smem(b.tile([k, j]), b_s, bar);
            barrier_wait(bar);
            let lhs = a_s.load(Layout::MmaLhs);
            let rhs = b_s.load(Layout::MmaRhs);
            acc = mma(acc, lhs, rhs);
        }
        c.tile([i, j]).store(acc);
    });
}

#[kernel(grid = (M / 16, N / 32))]
fn mma_f16_one_warp_row(a: Gmem<f16, M, K>, b: Gmem<f16, K, N>, c: GmemMut<f32, M, N>) {
    let (i, j) = (program_id(0), program_id(1));
    run_scoped(|a_s: Smem<f16, 16, 64>, b_s: Smem<f16, 64, 32>, bar: Barrier<2>| {
        let mut acc = splat::<f32>(0.0, [16, 32]).to_layout(Layout::MmaAcc);
        for k in 0..K / 64 {
            copy_gmem_to_smem(a.tile([i, k]), a_s, bar);
            copy_gmem_to_smem(b.tile([k, j]), b_s, bar);
            barrier_wait(bar);
            acc = mma(acc, a_s.load(Layout::MmaLhs), b_s.load(Layout::MmaRhs));
        }
        c.tile([i, j]).store(acc.to_layout(Layout::Strided));
    });
}

fn main() {}
