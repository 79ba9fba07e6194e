//! Tensor-parallel GEMMs with their communication fused in, on the GPUs of a [`DeviceGroup`]:
//! all-gather + GEMM (a column-parallel layer) and GEMM + reduce-scatter (a row-parallel layer),
//! bf16 operands, f32 accumulation, bf16 results.
//!
//! - [`all_gather_matmul`](struct@all_gather_matmul): each of the W ranks holds `M / W` rows of A
//!   and its own `K x N` columns of a weight; every rank computes `C = all_gather(A) @ B`
//!   (`M x N`), and ends with the gathered A too (`gathered`, which a layer's backward pass needs).
//! - [`matmul_reduce_scatter`](struct@matmul_reduce_scatter): each rank holds `A` (`M x K`, its
//!   share of the contraction) and `B` (`K x N`); rank `r` receives rows `r M / W ..` of the sum
//!   over ranks of `A @ B`.
//!
//! Both are the shipped GEMM ([`matmul`](crate::matmul), a persistent program per SM: a producer
//! warpgroup streaming A and B slices through a ring of shared-memory stages with TMA, two
//! consumer warpgroups of 64 rows each) walking a *ring* of W steps, one block of `M / W` rows per
//! step, with the communication done by the consumers while their wgmmas run, as in JAX Pallas's
//! Mosaic GPU collective matmul:
//!
//! - **All-gather.** At step `s` rank `d` multiplies shard `(d + s) % W` of A. The consumers of the
//!   first column tile of each 128-row panel copy the A slice they have just waited for, from the
//!   stage's shared memory, into the previous rank's `gathered` with a TMA store (`remote(..)`),
//!   which that rank multiplies at step `s + 1`: every byte of A crosses NVLink once per rank that
//!   receives it, and is read from HBM only once per panel, as a GEMM reads it. The producer of a
//!   tile at step `s >= 1` waits for its panel's two semaphores, each signalled by a sending
//!   consumer once its half of the panel is complete in the receiver's memory.
//! - **Reduce-scatter.** At step `s` rank `d` multiplies chunk `c = (d + s + 1) % W` of the rows of
//!   A; from step 1 on, each consumer adds to its 64 x N tile the running sum of that tile that the
//!   next rank computed a step earlier (prefetched by TMA under the tile's last wgmmas), and sends
//!   the sum on to the previous rank (a TMA store into its `partial`), until at the last step,
//!   chunk `d`, the sum is complete and goes to `out`. The running sums travel in bf16, as NCCL's
//!   bf16 reduce-scatter sums cuBLAS's bf16 products (one rounding per hop; the adds are in f32).
//!
//! The reduce-scatter's signals are deferred to the next tile's second K step, by when the TMA
//! stores have long completed, so that no consumer waits for NVLink's round trip there; the
//! all-gather's are given at the end of the sending tile (the next tile's producer may be waiting
//! for a panel whose sender waits for this signal, around the ring). Within a launch each region
//! of a receiving buffer is written once, so no rank waits for room. Between launches, each
//! program's producer waits, before the loads of its first tile that sends (which the sending
//! consumers wait for), until the receiving rank has started the new launch: the `READY` counter,
//! signalled by the receiver's program 0 at its start, when its previous launch, which read the
//! buffer, is over.
//!
//! No cycle of waits exists: a program waits for another rank's signal of a tile at an earlier
//! step, given before that rank's program waits for anything later, or for `READY`, given without
//! waiting; provided every program runs, which a grid of one program per SM ensures (the
//! dispatchers check that the GPUs have that many SMs). Every counter returns to zero, so one
//! [`AllGatherBuffers`] or [`ReduceScatterBuffers`] serves launch after launch.
//!
//! The dispatchers ([`all_gather_matmul_bf16`], [`matmul_reduce_scatter_bf16`], their
//! `interpret_` twins) check what the kernels cannot (a group of 1, 2, 4 or 8 GPUs, `M / W` a
//! multiple of 128, the same shapes on every rank) and choose the tiles ([`Tiles`]); a group of
//! one GPU runs them too (the ring is one step, with no communication).

use tessel::prelude::*;

mod buffers;
mod plan;

pub use buffers::{AllGatherBuffers, ReduceScatterBuffers};
pub use plan::{
    all_gather_matmul_bf16, all_gather_matmul_bf16_with, interpret_all_gather_matmul_bf16,
    interpret_all_gather_matmul_bf16_with, interpret_matmul_reduce_scatter_bf16,
    interpret_matmul_reduce_scatter_bf16_with, matmul_reduce_scatter_bf16, matmul_reduce_scatter_bf16_with, Problem,
    Tiles, WORLDS,
};
pub use ring::{all_gather_matmul, matmul_reduce_scatter, ALL_PTX};

/// The two kernels and the ring order they share. Every instance is listed once, in its kernel's
/// `instances(..)`, which `ALL_PTX` follows; the dispatchers map a world size and [`Tiles`] to an
/// instance.
#[kernels(uses(crate::gemm_fns::tiles))]
pub mod ring {
    use tessel::prelude::*;

    /// Unit `u` of the ring's order: its step, its panel (128-row tile of the step's block of
    /// rows) and its column tile. Steps one after another, so that the GPU finishes a step's tiles
    /// (nearly) before the next step's, whose data the previous hop brings; within a step the
    /// GEMM's L2 order over that step's tiles alone (a group of panels straddling two steps would
    /// run a step's tiles in the wave that produces their data).
    fn ring_unit<const GROUP: usize>(u: i32, panels: i32, cols: i32) -> (i32, i32, i32) {
        let (p, tj) = tile_order::<GROUP>(u % (panels * cols), panels, cols);
        (u / (panels * cols), p, tj)
    }

    /// C = all_gather(A) @ B on W ranks: A is the rank's MR x K rows (`a`, MR = M / W, a multiple
    /// of 128), B its K x N columns of the weight, C (M x N) and `gathered` (all_gather(A), M x K)
    /// the results. `sems` holds `1 + 2 M / 128` counters at zero: `READY` (0), then one per
    /// 64-row half of each 128-row panel of `gathered`. 128 x BN tiles, STAGES stages, results stored in 64 x CN pieces under
    /// the next tile's first wgmmas, as `matmul`'s. Any N and K (multiples of 8).
    ///
    /// Step `s` multiplies shard `(d + s) % W` (rank `d`): from `a` at step 0, from `gathered`
    /// after. The consumers of a panel's tile in column 0 store each A slice they multiply into
    /// `remote(gathered, prev)` (steps 0 to W - 2) and, at step 0, into this rank's own
    /// `gathered`; once its half of the panel is complete there, each consumer signals the half's
    /// counter on `prev` by `cols`, one count for each of the panel's tiles there, whose producers
    /// take one of each half's.
    #[kernel(grid = (PROGRAMS,), devices = W, warpgroups = 3, warpgroup_axis = wg, max_registers = 168,
             consts(BM = 128, BK = 64, GROUP = 16), ragged(N, K),
             instances((bf16, 1, 256, 4, 128, 132), (bf16, 2, 256, 4, 128, 132), (bf16, 4, 256, 4, 128, 132),
                       (bf16, 8, 256, 4, 128, 132), (bf16, 1, 128, 6, 128, 132), (bf16, 2, 128, 6, 128, 132),
                       (bf16, 4, 128, 6, 128, 132), (bf16, 8, 128, 6, 128, 132),
                       // On a few programs, for the interpreter's tests: each takes several tiles.
                       (bf16, 1, 256, 4, 128, 3), (bf16, 2, 256, 4, 128, 3), (bf16, 4, 256, 4, 128, 3),
                       (bf16, 2, 128, 6, 128, 2), (bf16, 4, 128, 6, 128, 2)))]
    pub fn all_gather_matmul<
        T,
        const W: usize,
        const BN: usize,
        const STAGES: usize,
        const CN: usize,
        const PROGRAMS: usize,
    >(
        a: Gmem<T, MR, K>,
        b: Gmem<T, K, N>,
        #[peers] gathered: GmemMut<T, M, K>,
        c: GmemMut<T, M, N>,
        #[peers] sems: GmemMut<u32, S>,
    ) {
        let (me, panels, cols, steps) = (device_id(), MR / BM, cdiv(N, BN), cdiv(K, BK));
        let prev = (me + W - 1) % W;
        // The previous rank's copy, taken once: `remote(..)` checks its rank with a `trap`, which,
        // between a wgmma and its wait, makes ptxas wait for the wgmma there (C7517).
        let to_prev = remote(gathered, prev);
        let (p0, programs) = (program_id(0), num_programs(0));
        let units = W * panels * cols;
        run_scoped(
            collective_axes = [wg],
            |a_s: Smem<T, STAGES, 2, 64, BK, Swizzle128>,
             b_s: Smem<T, STAGES, BK, BN, Swizzle128>,
             c_s: Smem<T, 2, 64, CN, Swizzle128>,
             ring: Pipeline<STAGES, 3, 2>| {
                if warpgroup_id() == 0 {
                    set_max_registers(40);
                    if W > 1 {
                        if p0 == 0 {
                            // This launch has started, so the previous one, which read `gathered`,
                            // is over: the next rank may store into it (one count per program).
                            semaphore_signal(remote(sems, (me + 1) % W), 0, programs);
                        }
                    }
                    // Whether READY was taken: before the loads of the first tile whose consumers
                    // store into `prev`'s `gathered` (their stores follow the loads' barriers).
                    let mut ready = 0;
                    // Counted in each role, not once above: live through both, it cost the
                    // consumers a spilled register (ptxas 12.9).
                    for t in 0..(units - p0 + programs - 1) / programs {
                        let (s, p, tj) = ring_unit::<GROUP>(p0 + t * programs, panels, cols);
                        let rt = (me + s) % W * panels + p;
                        if ready == 0 && tj == 0 && s < W - 1 {
                            semaphore_wait(sems, 0);
                            ready = 1;
                        }
                        if s > 0 {
                            // Both halves of the panel are in `gathered`.
                            semaphore_wait(sems, 1 + 2 * rt);
                            semaphore_wait(sems, 2 + 2 * rt);
                        }
                        pipeline_produce(ring, steps, |k, st, bar| {
                            if s == 0 {
                                copy_gmem_to_smem(a.tile([2 * p, k]), a_s.at(st).at(0), bar);
                                copy_gmem_to_smem(a.tile([2 * p + 1, k]), a_s.at(st).at(1), bar);
                            } else {
                                copy_gmem_to_smem(gathered.tile([2 * rt, k]), a_s.at(st).at(0), bar);
                                copy_gmem_to_smem(gathered.tile([2 * rt + 1, k]), a_s.at(st).at(1), bar);
                            }
                            copy_gmem_to_smem(b.tile([k, tj]), b_s.at(st), bar);
                        });
                    }
                    // READY's count is this program's, whether it sent or not.
                    if W > 1 {
                        if ready == 0 {
                            semaphore_wait(sems, 0);
                        }
                    }
                } else {
                    set_max_registers(232);
                    let h = warpgroup_id() - 1;
                    run_scoped(|acc: Acc<f32, 64, BN>| {
                        let mine = (units - p0 + programs - 1) / programs;
                        // The previous tile's result, converted, and where it goes.
                        let mut done = splat::<T>(0.0, [64, BN]).to_layout(Layout::Wgmma);
                        let (mut pr, mut pj) = (0, 0);
                        for t in 0..mine {
                            let (s, p, tj) = ring_unit::<GROUP>(p0 + t * programs, panels, cols);
                            let rt = (me + s) % W * panels + p;
                            pipeline_consume(ring, steps, |k, st| {
                                wgmma(acc, a_s.at(st).at(h), b_s.at(st), accumulate = k > 0);
                                if tj == 0 {
                                    // The panel's slice, on to `prev` (and into this rank's own
                                    // rows of `gathered` at step 0); read before the stage is
                                    // released.
                                    if s < W - 1 {
                                        copy_smem_to_gmem(a_s.at(st).at(h), to_prev.tile([2 * rt + h, k]));
                                    }
                                    if s == 0 {
                                        copy_smem_to_gmem(a_s.at(st).at(h), gathered.tile([2 * rt + h, k]));
                                    }
                                    wait_smem_to_gmem(0);
                                }
                                // The previous tile's result, a piece per step, under these wgmmas.
                                #[unroll]
                                for q in 0..BN / CN {
                                    if t > 0 && k == min(q, steps - 1) {
                                        wait_smem_to_gmem(0);
                                        c_s.at(h).store(done.slice([.., CN * q..CN * q + CN]));
                                        commit_smem();
                                        copy_smem_to_gmem(c_s.at(h), c.tile([2 * pr + h, (BN / CN) * pj + q]));
                                    }
                                }
                            });
                            if t + 1 < mine {
                                done = acc.load().cast::<T>();
                            }
                            (pr, pj) = (rt, tj);
                            if tj == 0 && s < W - 1 {
                                // This half of the panel is complete in `prev`'s memory: one count
                                // for each of the panel's tiles there. (Not deferred to the next
                                // tile: its producer may be waiting for a panel that `next` sends
                                // only once this signal has let it go on.)
                                wait_smem_to_gmem(0, complete = true);
                                semaphore_signal(remote(sems, prev), 1 + 2 * rt + h, cols);
                            }
                        }
                        // The last tile's result, from the accumulator.
                        #[unroll]
                        for q in 0..BN / CN {
                            if mine > 0 {
                                wait_smem_to_gmem(0);
                                c_s.at(h).store(acc.slice([.., CN * q..CN * q + CN]).load().cast::<T>());
                                commit_smem();
                                copy_smem_to_gmem(c_s.at(h), c.tile([2 * pr + h, (BN / CN) * pj + q]));
                            }
                        }
                        wait_smem_to_gmem(0);
                    });
                }
            },
        );
    }

    /// Rows `d MR ..` (MR = M / W, a multiple of 128) of the sum over the W ranks of A @ B, into
    /// rank `d`'s `out`: A is the rank's M x K (its share of the contraction), B its K x N.
    /// `partial` (M x N) receives the running sums from the next rank; `sems` holds
    /// `1 + 2 (M / 128) cdiv(N, BN)` counters at zero: `READY` (0), then one per 64 x BN half-tile
    /// of `partial`. 128 x BN tiles, STAGES stages. Any N and K (multiples of 8).
    ///
    /// Step `s` multiplies chunk `c = (d + s + 1) % W` of A's rows. Each consumer's 64 x BN
    /// result: at step 0 it goes to `remote(partial, prev)`; at steps 1 to W - 2 the running sum
    /// from `next` (waited for and prefetched into `c_s` three K steps before the tile's end) is added
    /// first; at step W - 1 (chunk d) the complete sum goes to `out`. Each half-tile sent is
    /// signalled once (deferred to the next tile's second K step) and waited for once.
    #[kernel(grid = (PROGRAMS,), devices = W, warpgroups = 3, warpgroup_axis = wg, max_registers = 168,
             consts(BM = 128, BK = 64, GROUP = 16, PIECES = BN / 64), ragged(N, K),
             instances((bf16, 1, 256, 3, 132), (bf16, 2, 256, 3, 132), (bf16, 4, 256, 3, 132), (bf16, 8, 256, 3, 132),
                       (bf16, 1, 128, 5, 132), (bf16, 2, 128, 5, 132), (bf16, 4, 128, 5, 132), (bf16, 8, 128, 5, 132),
                       // On a few programs, for the interpreter's tests.
                       (bf16, 1, 256, 3, 3), (bf16, 2, 256, 3, 3), (bf16, 4, 256, 3, 3), (bf16, 2, 128, 5, 2),
                       (bf16, 4, 128, 5, 2)))]
    pub fn matmul_reduce_scatter<T, const W: usize, const BN: usize, const STAGES: usize, const PROGRAMS: usize>(
        a: Gmem<T, M, K>,
        b: Gmem<T, K, N>,
        #[peers] partial: GmemMut<T, M, N>,
        out: GmemMut<T, MR, N>,
        #[peers] sems: GmemMut<u32, S>,
    ) {
        let (me, panels, cols, steps) = (device_id(), MR / BM, cdiv(N, BN), cdiv(K, BK));
        let prev = (me + W - 1) % W;
        // Taken once, as in `all_gather_matmul` (the signals too are given under wgmmas here).
        let (to_prev, prev_sems) = (remote(partial, prev), remote(sems, prev));
        let (p0, programs) = (program_id(0), num_programs(0));
        let units = W * panels * cols;
        run_scoped(
            collective_axes = [wg],
            |a_s: Smem<T, STAGES, 2, 64, BK, Swizzle128>,
             b_s: Smem<T, STAGES, BK, BN, Swizzle128>,
             c_s: Smem<T, 2, PIECES, 64, 64, Swizzle128>,
             got: Barrier<PIECES, 2>,
             ring: Pipeline<STAGES, 3, 2>| {
                if warpgroup_id() == 0 {
                    set_max_registers(40);
                    if W > 1 {
                        if p0 == 0 {
                            // As in `all_gather_matmul`: `partial` is free for the next rank.
                            semaphore_signal(remote(sems, (me + 1) % W), 0, programs);
                        }
                    }
                    // As in `all_gather_matmul`: READY before the loads of the first tile whose
                    // result goes to `prev` (its consumers' stores follow their stages' barriers).
                    let mut ready = 0;
                    for t in 0..(units - p0 + programs - 1) / programs {
                        let (s, p, tj) = ring_unit::<GROUP>(p0 + t * programs, panels, cols);
                        let rt = (me + s + 1) % W * panels + p;
                        if ready == 0 && s < W - 1 {
                            semaphore_wait(sems, 0);
                            ready = 1;
                        }
                        pipeline_produce(ring, steps, |k, st, bar| {
                            copy_gmem_to_smem(a.tile([2 * rt, k]), a_s.at(st).at(0), bar);
                            copy_gmem_to_smem(a.tile([2 * rt + 1, k]), a_s.at(st).at(1), bar);
                            copy_gmem_to_smem(b.tile([k, tj]), b_s.at(st), bar);
                        });
                    }
                    if W > 1 {
                        if ready == 0 {
                            semaphore_wait(sems, 0);
                        }
                    }
                } else {
                    set_max_registers(232);
                    let h = warpgroup_id() - 1;
                    run_scoped(|acc: Acc<f32, 64, BN>| {
                        let mine = (units - p0 + programs - 1) / programs;
                        // The half-tile sent to `prev` whose signal is due (-1: none).
                        let mut due = -1;
                        for t in 0..mine {
                            let (s, p, tj) = ring_unit::<GROUP>(p0 + t * programs, panels, cols);
                            let rt = (me + s + 1) % W * panels + p;
                            // This half-tile's counter (on every rank: the chunk's row tile).
                            let sem = 1 + 2 * (rt * cols + tj) + h;
                            // The previous tile's signal at the second K step (its stores have
                            // had a step to complete), the running sum's prefetch three steps
                            // before the end (two more steps of wgmmas cover its load), never
                            // before that signal: `prev`'s wait for it may stand in the way of a
                            // signal this wait needs, around the ring (with as many tiles per
                            // step as programs, the same position on every rank).
                            let (signal_at, fetch_at) = (min(1, steps - 1), min(max(steps - 3, 1), steps - 1));
                            pipeline_consume(ring, steps, |k, st| {
                                wgmma(acc, a_s.at(st).at(h), b_s.at(st), accumulate = k > 0);
                                if due >= 0 && k == signal_at {
                                    wait_smem_to_gmem(0, complete = true);
                                    semaphore_signal(prev_sems, due);
                                    due = -1;
                                }
                                if s > 0 && k == fetch_at {
                                    // The running sum from `next`, into `c_s` once the last tile's
                                    // store has read it, under these steps' wgmmas.
                                    wait_smem_to_gmem(0);
                                    semaphore_wait(sems, sem);
                                    #[unroll]
                                    for q in 0..PIECES {
                                        copy_gmem_to_smem(
                                            partial.tile([2 * rt + h, PIECES * tj + q]),
                                            c_s.at(h).at(q),
                                            got.at(h),
                                        );
                                    }
                                }
                            });
                            if s > 0 {
                                barrier_wait(got.at(h));
                                // Each thread rewrites the elements it read: no barrier between.
                                #[unroll]
                                for q in 0..PIECES {
                                    let sum = acc.slice([.., 64 * q..64 * q + 64]).load()
                                        + c_s.at(h).at(q).load(Layout::Wgmma).cast::<f32>();
                                    c_s.at(h).at(q).store(sum.cast::<T>());
                                }
                            } else {
                                wait_smem_to_gmem(0);
                                #[unroll]
                                for q in 0..PIECES {
                                    c_s.at(h).at(q).store(acc.slice([.., 64 * q..64 * q + 64]).load().cast::<T>());
                                }
                            }
                            commit_smem();
                            if s < W - 1 {
                                #[unroll]
                                for q in 0..PIECES {
                                    copy_smem_to_gmem(c_s.at(h).at(q), to_prev.tile([2 * rt + h, PIECES * tj + q]));
                                }
                                due = sem;
                            } else {
                                #[unroll]
                                for q in 0..PIECES {
                                    copy_smem_to_gmem(c_s.at(h).at(q), out.tile([2 * p + h, PIECES * tj + q]));
                                }
                            }
                        }
                        if due >= 0 {
                            wait_smem_to_gmem(0, complete = true);
                            semaphore_signal(prev_sems, due);
                        }
                        wait_smem_to_gmem(0);
                    });
                }
            },
        );
    }
}
