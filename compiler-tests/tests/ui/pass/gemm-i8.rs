//! Integer WGMMA: i8 x i8 -> i32, B K-major through `.t()` of an [N, K] buffer; and the same GEMM
//! dequantized in the epilogue with per-column scales loaded in the WGMMA column layout.

use tessel::prelude::*;

#[kernel(grid = (M / 64, N / 128))]
fn gemm_i8(a: Gmem<i8, M, K>, bt: Gmem<i8, N, K>, c: GmemMut<i32, M, N>) {
    let (i, j) = (program_id(0), program_id(1));
    run_scoped(
        |acc: Acc<i32, 64, 128>,
         a_s: Smem<i8, 64, 128, Swizzle128>,
         b_s: Smem<i8, 128, 128, Swizzle128>,
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

#[kernel(grid = (M / 64, N / 48))]
fn gemm_i8_dequant(
    a: Gmem<i8, M, K>,
    bt: Gmem<i8, N, K>,
    col_scale: Gmem<f32, N>,
    c: GmemMut<f32, M, N>,
    a_scale: f32,
) {
    let (i, j) = (program_id(0), program_id(1));
    run_scoped(
        |acc: Acc<i32, 64, 48>,
         a_s: Smem<i8, 64, 128, Swizzle128>,
         b_s: Smem<i8, 48, 128, Swizzle128>,
         bar: Barrier<2>| {
            for k in 0..K / 128 {
                copy_gmem_to_smem(a.tile([i, k]), a_s, bar);
                copy_gmem_to_smem(bt.tile([j, k]), b_s, bar);
                barrier_wait(bar);
                wgmma(acc, a_s, b_s.t());
                wgmma_wait(0);
            }
            let scales = col_scale.tile([j], [48]).load(Layout::WgmmaCol);
            let out = acc.load().cast::<f32>() * scales.broadcast([64, 48], Layout::Wgmma) * a_scale;
            c.tile([i, j]).store(out);
        },
    );
}

fn main() {}
