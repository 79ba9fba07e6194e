//! `run_state`: an accumulator initialised from registers (`Acc::from_regs`), e.g. C = A @ B + bias;
//! and accumulator stores and sliced loads in a zero-initialised one.

use tessel::prelude::*;

#[kernel(grid = (M / 64, N / 64))]
fn gemm_bias(a: Gmem<bf16, M, K>, b: Gmem<bf16, K, N>, bias: Gmem<f32, M, N>, c: GmemMut<f32, M, N>) {
    let (i, j) = (program_id(0), program_id(1));
    run_scoped(|a_s: Smem<bf16, 64, 64, Swizzle128>, b_s: Smem<bf16, 64, 64, Swizzle128>, bar: Barrier<2>| {
        let init = bias.tile([i, j], [64, 64]).load(Layout::Strided).to_layout(Layout::Wgmma);
        let out = run_state(Acc::from_regs(init), |acc| {
            for k in 0..K / 64 {
                copy_gmem_to_smem(a.tile([i, k]), a_s, bar);
                copy_gmem_to_smem(b.tile([k, j]), b_s, bar);
                barrier_wait(bar);
                wgmma(acc, a_s, b_s);
                wgmma_wait(0);
            }
            acc.load()
        });
        c.tile([i, j]).store(out);
    });
}

#[kernel(grid = (M / 64, N / 128))]
fn halves(a: Gmem<i8, M, K>, bt: Gmem<i8, N, K>, c: GmemMut<i32, M, N>, d: GmemMut<i32, M, N>) {
    let (i, j) = (program_id(0), program_id(1));
    run_scoped(
        |acc: Acc<i32, 64, 128>,
         a_s: Smem<i8, 64, 128, Swizzle128>,
         b_s: Smem<i8, 128, 128, Swizzle128>,
         bar: Barrier<2>| {
            acc.store(splat::<i32>(1, [64, 128]));
            for k in 0..K / 128 {
                copy_gmem_to_smem(a.tile([i, k]), a_s, bar);
                copy_gmem_to_smem(bt.tile([j, k]), b_s, bar);
                barrier_wait(bar);
                wgmma(acc, a_s, b_s.t());
                wgmma_wait(0);
            }
            let left = acc.slice([.., 0..64]).load();
            let right = acc.slice([0..64, 64..128]).load();
            c.tile([i, 2 * j], [64, 64]).store(left);
            d.tile([i, 2 * j + 1], [64, 64]).store(right * 2);
        },
    );
}

fn main() {}
