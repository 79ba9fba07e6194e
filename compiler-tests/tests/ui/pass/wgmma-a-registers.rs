//! WGMMA with A from registers (Layout::Wgmma): a bf16 A transformed elementwise on its way in, an
//! fp8 A quantized from f16 in registers, and an i8 A.

use tessel::prelude::*;

#[kernel(grid = (M / 64, N / 64))]
fn gated_gemm(a: Gmem<bf16, M, K>, b: Gmem<bf16, K, N>, c: GmemMut<f32, M, N>) {
    let (i, j) = (program_id(0), program_id(1));
    run_scoped(
        |acc: Acc<f32, 64, 64>,
         a_s: Smem<bf16, 64, 64, Swizzle128>,
         b_s: Smem<bf16, 64, 64, Swizzle128>,
         bar: Barrier<2>| {
            for k in 0..K / 64 {
                copy_gmem_to_smem(a.tile([i, k]), a_s, bar);
                copy_gmem_to_smem(b.tile([k, j]), b_s, bar);
                barrier_wait(bar);
                let x = a_s.load(Layout::Wgmma).cast::<f32>();
                let gated = x * (1.0 / (1.0 + exp2(-x * 1.4426950408889634)));
                wgmma(acc, gated.cast::<bf16>(), b_s);
                wgmma_wait(0);
            }
            c.tile([i, j]).store(acc.load());
        },
    );
}

#[kernel(grid = (M / 64, N / 64))]
fn quantized_a(a: Gmem<f16, M, K>, bt: Gmem<f8e4m3, N, K>, c: GmemMut<f16, M, N>) {
    let (i, j) = (program_id(0), program_id(1));
    run_scoped(
        |acc: Acc<f16, 64, 64>,
         a_s: Smem<f16, 64, 64, Swizzle128>,
         b_s: Smem<f8e4m3, 64, 64, Swizzle64>,
         bar: Barrier<2>| {
            for k in 0..K / 64 {
                copy_gmem_to_smem(a.tile([i, k]), a_s, bar);
                copy_gmem_to_smem(bt.tile([j, k]), b_s, bar);
                barrier_wait(bar);
                let a_r = a_s.load(Layout::Strided).to_layout(Layout::Wgmma).cast::<f8e4m3>();
                wgmma(acc, a_r, b_s.t());
                wgmma_wait(0);
            }
            c.tile([i, j]).store(acc.load());
        },
    );
}

#[kernel(grid = (M / 64, N / 32))]
fn int8_a_in_registers(a: Gmem<i8, M, K>, bt: Gmem<i8, N, K>, c: GmemMut<i32, M, N>) {
    let (i, j) = (program_id(0), program_id(1));
    run_scoped(
        |acc: Acc<i32, 64, 32>, a_s: Smem<i8, 64, 64, Swizzle64>, b_s: Smem<i8, 32, 64, Swizzle64>, bar: Barrier<2>| {
            for k in 0..K / 64 {
                copy_gmem_to_smem(a.tile([i, k]), a_s, bar);
                copy_gmem_to_smem(bt.tile([j, k]), b_s, bar);
                barrier_wait(bar);
                wgmma(acc, a_s.load(Layout::Wgmma), b_s.t());
                wgmma_wait(0);
            }
            c.tile([i, j]).store(acc.load());
        },
    );
}

fn main() {}
