//! WGMMA over fp8: e4m3 x e4m3 and e5m2 x e5m2 into f32, and the e4m3 x e5m2 mixes into f32 and f16.
//! fp8 operands are K-major: B is stored [N, K] and passed as `.t()`.

use tessel::prelude::*;

#[kernel(grid = (M / 64, N / 128))]
fn gemm_e4m3(a: Gmem<f8e4m3, M, K>, bt: Gmem<f8e4m3, N, K>, c: GmemMut<bf16, M, N>, scale: f32) {
    let (i, j) = (program_id(0), program_id(1));
    run_scoped(
        |acc: Acc<f32, 64, 128>,
         a_s: Smem<f8e4m3, 64, 128, Swizzle128>,
         b_s: Smem<f8e4m3, 128, 128, Swizzle128>,
         bar: Barrier<2>| {
            for k in 0..K / 128 {
                copy_gmem_to_smem(a.tile([i, k]), a_s, bar);
                copy_gmem_to_smem(bt.tile([j, k]), b_s, bar);
                barrier_wait(bar);
                wgmma(acc, a_s, b_s.t());
                wgmma_wait(0);
            }
            let scaled = acc.load() * scale;
            c.tile([i, j]).store(scaled.cast::<bf16>());
        },
    );
}

#[kernel(grid = (M / 64, N / 64))]
fn gemm_e5m2(a: Gmem<f8e5m2, M, K>, bt: Gmem<f8e5m2, N, K>, c: GmemMut<f32, M, N>) {
    let (i, j) = (program_id(0), program_id(1));
    run_scoped(
        |acc: Acc<f32, 64, 64>,
         a_s: Smem<f8e5m2, 64, 64, Swizzle64>,
         b_s: Smem<f8e5m2, 64, 64, Swizzle64>,
         bar: Barrier<2>| {
            for k in 0..K / 64 {
                copy_gmem_to_smem(a.tile([i, k]), a_s, bar);
                copy_gmem_to_smem(bt.tile([j, k]), b_s, bar);
                barrier_wait(bar);
                wgmma(acc, a_s, b_s.t());
                wgmma_wait(0);
            }
            c.tile([i, j]).store(acc.load());
        },
    );
}

#[kernel(grid = (M / 64, N / 64))]
fn gemm_e4m3_e5m2_f32(a: Gmem<f8e4m3, M, K>, bt: Gmem<f8e5m2, N, K>, c: GmemMut<f32, M, N>) {
    let (i, j) = (program_id(0), program_id(1));
    run_scoped(
        |acc: Acc<f32, 64, 64>,
         a_s: Smem<f8e4m3, 64, 128, Swizzle128>,
         b_s: Smem<f8e5m2, 64, 128, Swizzle128>,
         bar: Barrier<2>| {
            for k in 0..K / 128 {
                copy_gmem_to_smem(a.tile([i, k]), a_s, bar);
                copy_gmem_to_smem(bt.tile([j, k]), b_s, bar);
                barrier_wait(bar);
                wgmma(acc, a_s, b_s.t());
                wgmma_wait(0);
            }
            c.tile([i, j]).store(acc.load());
        },
    );
}

#[kernel(grid = (M / 64, N / 256))]
fn gemm_e5m2_e4m3_f16(a: Gmem<f8e5m2, M, K>, bt: Gmem<f8e4m3, N, K>, c: GmemMut<f16, M, N>) {
    let (i, j) = (program_id(0), program_id(1));
    run_scoped(
        |acc: Acc<f16, 64, 256>,
         a_s: Smem<f8e5m2, 64, 128, Swizzle128>,
         b_s: Smem<f8e4m3, 256, 128, Swizzle128>,
         bar: Barrier<2>| {
            for k in 0..K / 128 {
                copy_gmem_to_smem(a.tile([i, k]), a_s, bar);
                copy_gmem_to_smem(bt.tile([j, k]), b_s, bar);
                barrier_wait(bar);
                wgmma(acc, a_s, b_s.t());
                wgmma_wait(0);
            }
            c.tile([i, j]).store(acc.load());
        },
    );
}

fn main() {}
