//! `Pipeline`: rings of TMA stages declared with `Pipeline<stages, copies, releases>` and walked with
//! `pipeline_produce` / `pipeline_consume` (the barriers, stage indices and parities are generated),
//! for one warp-specialized consumer with `delay_release`, two consumers across persistent tiles,
//! and a 2 x 1 cluster whose stages are filled by multicast copies and released cluster-wide (also
//! written by hand with `barrier_arrive(bar, cluster = true)`).

use tessel::prelude::*;

#[kernel(grid = (M / 64, N / 64), warpgroups = 2, warpgroup_axis = wg, consts(STAGES = 3))]
fn gemm_one_consumer(a: Gmem<bf16, M, K>, b: Gmem<bf16, K, N>, c: GmemMut<f32, M, N>) {
    let (i, j) = (program_id(0), program_id(1));
    run_scoped(
        collective_axes = [wg],
        |a_s: Smem<bf16, STAGES, 64, 64, Swizzle128>,
         b_s: Smem<bf16, STAGES, 64, 64, Swizzle128>,
         ring: Pipeline<STAGES, 2, 1>| {
            if warpgroup_id() == 0 {
                pipeline_produce(ring, K / 64, |k, s, bar| {
                    copy_gmem_to_smem(a.tile([i, k]), a_s.at(s), bar);
                    copy_gmem_to_smem(b.tile([k, j]), b_s.at(s), bar);
                });
            } else {
                run_scoped(|acc: Acc<f32, 64, 64>| {
                    pipeline_consume(ring, K / 64, |k, s| wgmma(acc, a_s.at(s), b_s.at(s)), delay_release = true);
                    c.tile([i, j]).store(acc.load());
                });
            }
        },
    );
}

#[kernel(grid = (8,), warpgroups = 3, warpgroup_axis = wg, consts(STAGES = 4))]
fn gemm_persistent(a: Gmem<f16, M, K>, b: Gmem<f16, K, N>, c: GmemMut<f16, M, N>) {
    let tiles = M / 128 * (N / 128);
    run_scoped(
        collective_axes = [wg],
        |a_s: Smem<f16, STAGES, 2, 64, 64, Swizzle128>,
         b_s: Smem<f16, STAGES, 64, 128, Swizzle128>,
         c_s: Smem<f16, 2, 64, 128, Swizzle128>,
         ring: Pipeline<STAGES, 3, 2>| {
            if warpgroup_id() == 0 {
                for t in 0..(tiles - program_id(0) + 7) / 8 {
                    let tile = program_id(0) + 8 * t;
                    let (ti, tj) = (tile / (N / 128), tile % (N / 128));
                    pipeline_produce(ring, K / 64, |k, s, bar| {
                        copy_gmem_to_smem(a.tile([2 * ti, k]), a_s.at(s).at(0), bar);
                        copy_gmem_to_smem(a.tile([2 * ti + 1, k]), a_s.at(s).at(1), bar);
                        copy_gmem_to_smem(b.tile([k, tj]), b_s.at(s), bar);
                    });
                }
            } else {
                let h = warpgroup_id() - 1;
                run_scoped(|acc: Acc<f32, 64, 128>| {
                    for t in 0..(tiles - program_id(0) + 7) / 8 {
                        let tile = program_id(0) + 8 * t;
                        let (ti, tj) = (tile / (N / 128), tile % (N / 128));
                        acc.store(splat::<f32>(0.0, [64, 128]));
                        pipeline_consume(ring, K / 64, |k, s| {
                            wgmma(acc, a_s.at(s).at(h), b_s.at(s));
                        });
                        wait_smem_to_gmem(0);
                        c_s.at(h).store(acc.load().cast::<f16>());
                        commit_smem();
                        copy_smem_to_gmem(c_s.at(h), c.tile([2 * ti + h, tj]));
                    }
                });
            }
        },
    );
}

#[kernel(grid = (M / 64, N / 64), cluster = (2, 1), warpgroups = 2, warpgroup_axis = wg)]
fn gemm_cluster_ring(a: Gmem<bf16, M, K>, b: Gmem<bf16, K, N>, c: GmemMut<f32, M, N>) {
    let (i, j) = (program_id(0), program_id(1));
    run_scoped(
        collective_axes = [wg],
        |a_s: Smem<bf16, 2, 64, 64, Swizzle128>,
         b_s: Smem<bf16, 2, 64, 64, Swizzle128>,
         ring: Pipeline<2, 2, 2>| {
            if warpgroup_id() == 0 {
                pipeline_produce(ring, K / 64, |k, s, bar| {
                    copy_gmem_to_smem(a.tile([i, k]), a_s.at(s), bar);
                    copy_gmem_to_smem(b.tile([k, j]), b_s.at(s), bar, multicast = true);
                });
            } else {
                run_scoped(|acc: Acc<f32, 64, 64>| {
                    pipeline_consume(ring, K / 64, |k, s| {
                        wgmma(acc, a_s.at(s), b_s.at(s));
                    }, cluster = true);
                    c.tile([i, j]).store(acc.load());
                });
            }
        },
    );
}

#[kernel(grid = (M / 64, N / 64), cluster = (2, 1))]
fn gemm_cluster_by_hand(a: Gmem<bf16, M, K>, b: Gmem<bf16, K, N>, c: GmemMut<f32, M, N>) {
    let (i, j) = (program_id(0), program_id(1));
    run_scoped(
        |acc: Acc<f32, 64, 64>,
         a_s: Smem<bf16, 64, 64, Swizzle128>,
         b_s: Smem<bf16, 64, 64, Swizzle128>,
         full: Barrier<2>,
         free: Barrier<2>| {
            for k in 0..K / 64 {
                if k > 0 {
                    // Both programs are done reading: the multicast may overwrite their b_s.
                    barrier_wait(free);
                }
                copy_gmem_to_smem(a.tile([i, k]), a_s, full);
                copy_gmem_to_smem(b.tile([k, j]), b_s, full, multicast = true);
                barrier_wait(full);
                wgmma(acc, a_s, b_s);
                wgmma_wait(0);
                barrier_arrive(free, cluster = true);
            }
            c.tile([i, j]).store(acc.load());
        },
    );
}

fn main() {}
