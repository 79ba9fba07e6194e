//! Clusters: two programs along M share each B tile through a multicast TMA load.

use tessel::prelude::*;

#[kernel(grid = (M / 64, N / 64), cluster = (2, 1))]
fn gemm_multicast(a: Gmem<bf16, M, K>, b: Gmem<bf16, K, N>, c: GmemMut<f32, M, N>) {
    let (i, j) = (program_id(0), program_id(1));
    let rank = cluster_rank();
    run_scoped(
        |acc: Acc<f32, 64, 64>,
         a_s: Smem<bf16, 64, 64, Swizzle128>,
         b_s: Smem<bf16, 64, 64, Swizzle128>,
         bar: Barrier<2>| {
            for k in 0..K / 64 {
                copy_gmem_to_smem(a.tile([i, k]), a_s, bar);
                copy_gmem_to_smem(b.tile([k, j]), b_s, bar, multicast = true);
                barrier_wait(bar);
                wgmma(acc, a_s, b_s);
                wgmma_wait(0);
            }
            let out = acc.load() + (rank as f32) * 0.0;
            c.tile([i, j]).store(out);
        },
    );
}

#[kernel(grid = (M / 64, N / 128, 4), cluster = (1, 2, 2))]
fn gemm_cluster_of_four(a: Gmem<f16, M, K>, bt: Gmem<f16, N, K>, c: GmemMut<f16, M, N>) {
    let (i, j) = (program_id(0), program_id(1));
    let split = program_id(2);
    let parts = num_programs(2);
    run_scoped(
        |acc: Acc<f16, 64, 128>,
         a_s: Smem<f16, 64, 64, Swizzle128>,
         b_s: Smem<f16, 128, 64, Swizzle128>,
         bar: Barrier<2>| {
            for k in 0..K / 64 / parts {
                let kk = split * (K / 64 / parts) + k;
                copy_gmem_to_smem(a.tile([i, kk]), a_s, bar, multicast = true);
                copy_gmem_to_smem(bt.tile([j, kk]), b_s, bar);
                barrier_wait(bar);
                wgmma(acc, a_s, b_s.t());
                wgmma_wait(0);
            }
            c.tile([i, j]).store(acc.load());
        },
    );
}

fn main() {}
