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

// Split K across a pair: program 1 sends its f32 partial into program 0's buffer of the same name,
// completing on program 0's barrier; program 0 adds it to its own.
#[kernel(grid = (2 * (M / 64), N / 128), cluster = (2, 1), consts(BK = 64))]
fn split_k_pair(a: Gmem<bf16, M, K>, b: Gmem<bf16, K, N>, c: GmemMut<f32, M, N>) {
    let (half, i, j, steps) = (cluster_rank(), program_id(0) / 2, program_id(1), K / (2 * BK));
    run_scoped(
        |acc: Acc<f32, 64, 128>,
         a_s: Smem<bf16, 64, BK, Swizzle128>,
         b_s: Smem<bf16, BK, 128, Swizzle128>,
         part: Smem<f32, 2, 64, 64, Swizzle128>,
         loaded: Barrier<2>,
         received: Barrier<2>| {
            for k in 0..steps {
                copy_gmem_to_smem(a.tile([i, half * steps + k]), a_s, loaded);
                copy_gmem_to_smem(b.tile([half * steps + k, j]), b_s, loaded);
                barrier_wait(loaded);
                wgmma(acc, a_s, b_s);
                wgmma_wait(0);
            }
            if half == 1 {
                part.at(0).store(acc.slice([.., 0..64]).load());
                part.at(1).store(acc.slice([.., 64..128]).load());
                commit_smem();
                copy_smem_to_peer(part.at(0), part.at(0), received, 0);
                copy_smem_to_peer(part.at(1), part.at(1), received, 0);
            } else {
                barrier_wait(received);
                c.tile([i, 2 * j], [64, 64]).store(acc.slice([.., 0..64]).load() + part.at(0).load(Layout::Wgmma));
                c.tile([i, 2 * j + 1], [64, 64]).store(acc.slice([.., 64..128]).load() + part.at(1).load(Layout::Wgmma));
            }
        },
    );
}

fn main() {}
