//! A software-pipelined GEMM: multi-stage shared buffers `Smem<bf16, STAGES, 64, 64, Swizzle128>`
//! indexed with `.at(s)`, one barrier per stage (`Barrier<2, STAGES>`: both copies of a stage arrive on it), prefetching the next stage
//! under an `if`.

use tessel::prelude::*;

#[kernel(grid = (M / 64, N / 64), consts(STAGES = 2, BK = 64))]
fn gemm_pipelined(a: Gmem<bf16, M, K>, b: Gmem<bf16, K, N>, c: GmemMut<f32, M, N>) {
    let (i, j) = (program_id(0), program_id(1));
    run_scoped(
        |acc: Acc<f32, 64, 64>,
         a_s: Smem<bf16, STAGES, 64, BK, Swizzle128>,
         b_s: Smem<bf16, STAGES, BK, 64, Swizzle128>,
         loaded: Barrier<2, STAGES>| {
            copy_gmem_to_smem(a.tile([i, 0]), a_s.at(0), loaded.at(0));
            copy_gmem_to_smem(b.tile([0, j]), b_s.at(0), loaded.at(0));
            for k in 0..K / BK {
                let s = k % STAGES;
                if k + 1 < K / BK {
                    let next = (k + 1) % STAGES;
                    copy_gmem_to_smem(a.tile([i, k + 1]), a_s.at(next), loaded.at(next));
                    copy_gmem_to_smem(b.tile([k + 1, j]), b_s.at(next), loaded.at(next));
                }
                barrier_wait(loaded.at(s));
                wgmma(acc, a_s.at(s), b_s.at(s));
                wgmma_wait(0);
            }
            c.tile([i, j]).store(acc.load());
        },
    );
}

// The same with three stages, a 128 x 128 tile and wgmma groups kept in flight.
#[kernel(grid = (M / 128, N / 128), consts(STAGES = 3))]
fn gemm_three_stages(a: Gmem<f16, M, K>, b: Gmem<f16, K, N>, c: GmemMut<f16, M, N>) {
    let (i, j) = (program_id(0), program_id(1));
    run_scoped(
        |acc: Acc<f32, 128, 128>,
         a_s: Smem<f16, STAGES, 128, 64, Swizzle128>,
         b_s: Smem<f16, STAGES, 64, 128, Swizzle128>,
         loaded: Barrier<2, STAGES>| {
            for s in 0..STAGES - 1 {
                copy_gmem_to_smem(a.tile([i, s]), a_s.at(s), loaded.at(s));
                copy_gmem_to_smem(b.tile([s, j]), b_s.at(s), loaded.at(s));
            }
            for k in 0..K / 64 {
                let s = k % STAGES;
                barrier_wait(loaded.at(s));
                wgmma(acc, a_s.at(s), b_s.at(s));
                wgmma_wait(1);
                let ahead = k + STAGES - 1;
                if ahead < K / 64 {
                    let t = ahead % STAGES;
                    copy_gmem_to_smem(a.tile([i, ahead]), a_s.at(t), loaded.at(t));
                    copy_gmem_to_smem(b.tile([ahead, j]), b_s.at(t), loaded.at(t));
                }
            }
            wgmma_wait(0);
            c.tile([i, j]).store(acc.load().cast::<f16>());
        },
    );
}

fn main() {}
