//! The persistent, warp-specialized GEMM of `kernels/examples/matmul.rs` and `bench/examples/bench_matmul.rs`.
//!
//! One program per SM walks over 128 x BN tiles of C in an L2-friendly order. Warpgroup 0 is the
//! producer: it streams 128 x 64 slices of A and 64 x BN slices of B through a ring of shared-memory
//! stages with TMA (a `Pipeline`). Warpgroups 1 and 2 are consumers: each multiplies its 64 rows
//! of the A slice by the B slice (m64nBNk16 wgmmas) and releases the stage as soon as its wgmmas
//! have read it (the other consumer's keep the tensor cores busy). Its 64 x BN half of C, converted
//! to the output type, waits in registers until the next tile's first K steps, under whose wgmmas
//! it goes out through shared memory (`stmatrix`, a 128-column piece per step for 128 x 256 tiles)
//! with TMA stores; the last tile's goes out after the loop.
//!
//! For skinny outputs, where 128 x 256 tiles would leave most SMs idle, [`matmul_split`] splits K
//! instead: several programs compute one 128 x 128 tile, each a share of K; they hand each other
//! their f32 sums through global memory ([`Workspace`]) and semaphores, and each adds up and
//! stores the slices of the tile it owns, the others' sums of them copied in by TMA into the
//! shared memory its pipeline's stages used.
//!
//! Where wide tiles would leave the last wave part-empty, 128 x 192 tiles may fill it (the same
//! kernel, [`matmul`]), or [`matmul_overlapped`] takes 128 x 128 tiles, two at a time in each consumer's
//! 64 x 256 accumulator, so that one tile's epilogue runs under the next one's first wgmmas
//! ([`choose`] weighs the waves).
//!
//! For decoding-sized M (64 rows or fewer), [`matmul_skinny`] computes C^T = B^T A^T instead, so that 64
//! columns of B fill the wgmma's rows and the few rows of A its N, streaming each 64-column slab
//! of B through a deep ring of stages ([`waves::skinny`] picks rows, slabs per program and a
//! split of K).
//!
//! Every kernel is `ragged(M, N, K)`: any M, N and K (N and K in TMA's 16-byte rows), the last
//! tiles overhanging the arrays.
//!
//! One kernel, [`matmul`], two ways of placing programs (its `CLUSTER`):
//! - 1: no clusters;
//! - 2: 2 x 1 clusters compute two tiles stacked along M, which share their B slices: each
//!   program loads half of every B slice and multicasts it to both, and releases each stage in
//!   both programs.
//!
//! The four are generic kernels of one `#[kernels]` module ([`gemm`]), sharing its kernel
//! function (the producer's step) and those of the libraries the GEMM families share
//! ([`gemm_fns`](crate::gemm_fns): the tile order, the split-K exchange, the skinny kernels' sums
//! down the cluster); each instance is listed once, in its kernel's
//! `instances(..)`, which [`ALL_PTX`] lists (for the `ptxas` checks and `TESSEL_DUMP_PTX`) as
//! `matmul::<bf16, 256, 4, 128, 1, 132>` (dtype, BN, STAGES, CN, CLUSTER, PROGRAMS),
//! `matmul_overlapped::<bf16, 132>` (dtype, PROGRAMS), `matmul_split::<bf16>` and
//! `matmul_skinny::<bf16, 16, 2, 2, 9, 1>` (dtype, RN, WGS, KSUB, STAGES, SPLIT).

use tessel::prelude::*;

use crate::waves::{self, dim, Rows, Spread};
use crate::workspace::Workspace;

/// The GEMM family: four generic kernels and the kernel functions they share. Every instance is
/// listed once, in its kernel's `instances(..)`, which `ALL_PTX` (the `#[kernels]` module's list
/// of every instance's PTX) follows; the dispatchers below map each `Variant` to its instance.
#[kernels(uses(crate::gemm_fns::tiles, crate::gemm_fns::split_k))]
pub mod gemm {
    use tessel::prelude::*;

    /// A producer's step: the 128 x 64 slice of A at row-tile pair `ti` (two 64-row halves) and
    /// K step `k`, and B's 64 x BN slice at (k, tj), into a stage, completing on `bar`; B's slice
    /// multicast to the cluster's programs with MULTICAST = 1 (each loads half of it).
    fn load_ab<T, const MULTICAST: usize>(
        a: Gmem<T, M, K>,
        b: Gmem<T, K, N>,
        a_s: Smem<T, 2, 64, 64, Swizzle128>,
        b_s: Smem<T, 64, _, Swizzle128>,
        bar: Barrier<_>,
        ti: i32,
        tj: i32,
        k: i32,
    ) {
        copy_gmem_to_smem(a.tile([2 * ti, k]), a_s.at(0), bar);
        copy_gmem_to_smem(a.tile([2 * ti + 1, k]), a_s.at(1), bar);
        copy_gmem_to_smem(b.tile([k, tj]), b_s, bar, multicast = MULTICAST == 1);
    }

    /// C = A @ B with f32 accumulation, A M x K and B K x N row-major, C in the element type `T`,
    /// 128 x BN tiles, STAGES stages. Any M, N and K: the last tiles overhang the arrays, where TMA
    /// reads zeros (which add nothing to the products) and drops what a store writes outside. Each
    /// consumer stores its 64 x BN result in 64 x CN pieces through one buffer: with 128 x 256
    /// tiles, pieces of 128 columns leave room for a fourth stage (4 x 48 KiB of stages and 32 KiB
    /// of output buffers), which measured 1% faster on the H200 at 2048^3 and 8192 x 8192 x 1024,
    /// and the same at 8192^3 (commit b3d724d). A tile's result, converted (`done`, half the
    /// accumulator's registers), is stored one piece per K step of the next tile, after that
    /// step's wgmmas are issued, so that the tensor cores are not idle while it goes out: 0.3-0.7%
    /// faster at 4096^3, 8192^3 and 8192 x 8192 x 1024 on the H200, 0.6-0.9% slower at 2048^3,
    /// where each program has one tile (commit e8dbbf2). The programs take their units GROUP = 16
    /// rows at a time: the 132 running 128 x 256 tiles then span 16 row panels of A and 8 or 9
    /// column panels of B, about as many bytes of each (GROUP = 8: B four times A), which measured
    /// 0.6% faster at 4096^3 on the H200 (commit f97a9e4; the other orders tried are in
    /// `docs/experiments.md`).
    ///
    /// CLUSTER = 2: 2 x 1 clusters compute two tiles stacked along M (a unit), which share their B
    /// slices: each program loads half of every B slice and multicasts it to both, and releases
    /// each stage in both programs.
    #[kernel(grid = (PROGRAMS,), cluster = (CLUSTER,), warpgroups = 3, warpgroup_axis = wg, max_registers = 168,
             consts(BM = 128, BK = 64, GROUP = 16, RELEASES = 2 * CLUSTER), ragged(M, N, K),
             instances((bf16, 256, 4, 128, 1, 132), (f16, 256, 4, 128, 1, 132), (bf16, 192, 4, 192, 1, 132),
                       (f16, 192, 4, 192, 1, 132), (bf16, 256, 3, 256, 2, 132), (f16, 256, 3, 256, 2, 132),
                       (bf16, 64, 8, 64, 1, 132), (f16, 64, 8, 64, 1, 132),
                       // On a few programs, for the tests: each takes several tiles.
                       (bf16, 256, 4, 128, 1, 3), (f16, 192, 4, 192, 1, 2)))]
    pub fn matmul<
        T,
        const BN: usize,
        const STAGES: usize,
        const CN: usize,
        const CLUSTER: usize,
        const PROGRAMS: usize,
    >(
        a: Gmem<T, M, K>,
        b: Gmem<T, K, N>,
        c: GmemMut<T, M, N>,
    ) {
        // Work units (a tile, or a cluster's pair of tiles): cluster `cl` takes every `clusters`-th.
        let (unit_rows, unit_cols, steps) = (cdiv(M, CLUSTER * BM), cdiv(N, BN), cdiv(K, BK));
        let (cl, clusters) = (program_id(0) / CLUSTER, num_programs(0) / CLUSTER);
        let units = unit_rows * unit_cols;
        run_scoped(
            collective_axes = [wg],
            |a_s: Smem<T, STAGES, 2, 64, BK, Swizzle128>,
             b_s: Smem<T, STAGES, BK, BN, Swizzle128>,
             c_s: Smem<T, 2, 64, CN, Swizzle128>,
             // Three copies fill a stage; each consumer (of each program, with clusters) releases it.
             ring: Pipeline<STAGES, 3, RELEASES>| {
                if warpgroup_id() == 0 {
                    // Producer. (Each role has its own loop: `setmaxnreg` needs the code after it
                    // to fit in the registers it leaves.)
                    set_max_registers(40);
                    for t in 0..(units - cl + clusters - 1) / clusters {
                        let (ur, uc) = tile_order::<GROUP>(cl + t * clusters, unit_rows, unit_cols);
                        let (ti, tj) = (if CLUSTER > 1 { 2 * ur + cluster_rank() } else { ur }, uc);
                        pipeline_produce(ring, steps, |k, s, bar| {
                            load_ab::<T, { CLUSTER - 1 }>(a, b, a_s.at(s), b_s.at(s), bar, ti, tj, k);
                        });
                    }
                } else {
                    // Consumers: 64 rows each.
                    set_max_registers(232);
                    let h = warpgroup_id() - 1;
                    run_scoped(|acc: Acc<f32, 64, BN>| {
                        let mine = (units - cl + clusters - 1) / clusters;
                        // The previous tile's result, converted to the output type, and where it goes.
                        let mut done = splat::<T>(0.0, [64, BN]).to_layout(Layout::Wgmma);
                        let (mut pi, mut pj) = (0, 0);
                        for t in 0..mine {
                            let (ur, uc) = tile_order::<GROUP>(cl + t * clusters, unit_rows, unit_cols);
                            let (ti, tj) = (if CLUSTER > 1 { 2 * ur + cluster_rank() } else { ur }, uc);
                            // The tile's first step overwrites the accumulator (no zeroing).
                            pipeline_consume(
                                ring,
                                steps,
                                |k, s| {
                                    wgmma(acc, a_s.at(s).at(h), b_s.at(s), accumulate = k > 0);
                                    // The previous tile's result, a piece per step (all in the one step
                                    // of a K of at most 64), under these wgmmas.
                                    #[unroll]
                                    for q in 0..BN / CN {
                                        if t > 0 && k == min(q, steps - 1) {
                                            // The previous store must have read c_s before it is rewritten.
                                            wait_smem_to_gmem(0);
                                            c_s.at(h).store(done.slice([.., CN * q..CN * q + CN]));
                                            commit_smem();
                                            copy_smem_to_gmem(c_s.at(h), c.tile([2 * pi + h, (BN / CN) * pj + q]));
                                        }
                                    }
                                },
                                cluster = CLUSTER > 1,
                            );
                            if t + 1 < mine {
                                done = acc.load().cast::<T>();
                            }
                            (pi, pj) = (ti, tj);
                        }
                        // The last tile's result, from the accumulator.
                        #[unroll]
                        for q in 0..BN / CN {
                            if mine > 0 {
                                wait_smem_to_gmem(0);
                                c_s.at(h).store(acc.slice([.., CN * q..CN * q + CN]).load().cast::<T>());
                                commit_smem();
                                copy_smem_to_gmem(c_s.at(h), c.tile([2 * pi + h, (BN / CN) * pj + q]));
                            }
                        }
                    });
                }
            },
        );
    }

    /// C = A @ B with 128 x 128 tiles whose epilogue runs under the next tile's first wgmmas: each
    /// consumer's 64 x 256 accumulator holds two 64 x 128 tiles that take turns (`half`), so that
    /// while a tile's first step multiplies into one half, the previous tile's result is stored
    /// from the other. Any M, N and K, as for `matmul`.
    #[kernel(grid = (PROGRAMS,), warpgroups = 3, warpgroup_axis = wg, max_registers = 168,
             consts(BM = 128, BN = 128, BK = 64, STAGES = 6, GROUP = 8), ragged(M, N, K),
             // 3 and 2 programs: for the tests.
             instances((bf16, 132), (f16, 132), (bf16, 3), (f16, 2)))]
    pub fn matmul_overlapped<T, const PROGRAMS: usize>(a: Gmem<T, M, K>, b: Gmem<T, K, N>, c: GmemMut<T, M, N>) {
        let (tile_rows, tile_cols, steps) = (cdiv(M, BM), cdiv(N, BN), cdiv(K, BK));
        let (p, programs) = (program_id(0), num_programs(0));
        let tiles = tile_rows * tile_cols;
        // This program's tiles: p, p + programs, ..
        let mine = (tiles - p + programs - 1) / programs;
        run_scoped(
            collective_axes = [wg],
            |a_s: Smem<T, STAGES, 2, 64, BK, Swizzle128>,
             b_s: Smem<T, STAGES, BK, BN, Swizzle128>,
             c_s: Smem<T, 2, 64, BN, Swizzle128>,
             ring: Pipeline<STAGES, 3, 2>| {
                if warpgroup_id() == 0 {
                    set_max_registers(40);
                    for t in 0..mine {
                        let (ti, tj) = tile_order::<GROUP>(p + t * programs, tile_rows, tile_cols);
                        pipeline_produce(ring, steps, |k, s, bar| {
                            load_ab::<T, 0>(a, b, a_s.at(s), b_s.at(s), bar, ti, tj, k);
                        });
                    }
                } else {
                    set_max_registers(232);
                    let h = warpgroup_id() - 1;
                    run_scoped(|acc: Acc<f32, 64, 256>| {
                        // The tile whose result waits in the other half.
                        let (mut pi, mut pj) = (0, 0);
                        for pair in 0..(mine + 1) / 2 {
                            #[unroll]
                            for half in 0..2 {
                                let t = 2 * pair + half;
                                // Where this tile's result goes, and where the previous one's waits.
                                let (this_half, other_half) = (BN * half, BN - BN * half);
                                if t < mine {
                                    let (ti, tj) = tile_order::<GROUP>(p + t * programs, tile_rows, tile_cols);
                                    // Nothing is in flight here; but ptxas, not seeing that the other
                                    // half's wgmmas were waited for (on the way around the loop), would
                                    // otherwise wait for this tile's first ones before the epilogue
                                    // reads the other half.
                                    wgmma_wait(0);
                                    pipeline_consume(ring, steps, |k, s| {
                                        let out = acc.slice([.., this_half..this_half + BN]);
                                        wgmma(out, a_s.at(s).at(h), b_s.at(s), accumulate = k > 0);
                                        if k == 0 && t > 0 {
                                            // The previous tile's result, while this one's first wgmmas
                                            // run. Its store must have read c_s before c_s is rewritten.
                                            let done = acc.slice([.., other_half..other_half + BN]);
                                            wait_smem_to_gmem(0);
                                            c_s.at(h).store(done.load().cast::<T>());
                                            commit_smem();
                                            copy_smem_to_gmem(c_s.at(h), c.tile([2 * pi + h, pj]));
                                        }
                                    });
                                    (pi, pj) = (ti, tj);
                                }
                            }
                        }
                        // The last tile's result.
                        #[unroll]
                        for half in 0..2 {
                            if mine > 0 && (mine - 1) % 2 == half {
                                wait_smem_to_gmem(0);
                                c_s.at(h).store(acc.slice([.., BN * half..BN * half + BN]).load().cast::<T>());
                                commit_smem();
                                copy_smem_to_gmem(c_s.at(h), c.tile([2 * pi + h, pj]));
                            }
                        }
                    });
                }
            },
        );
    }

    /// C = A @ B for skinny shapes: K split over `ways` programs per 128 x 128 tile of C, each
    /// multiplying an equal share of K through six stages; then each program stores its sum into
    /// its block of `partial` and tells each other program of the tile (a semaphore per program
    /// and consumer), and adds up the slices of the tile it owns (64 x 32, the slice `q` of
    /// consumer `h` to program `(4 * h + q) % ways`): its own sum of it, then the others' in the
    /// tile's program order (the same sum, bit for bit, every launch), copied by TMA into `part`
    /// (SLOTS buffers per consumer, as many on the way at once, in the shared memory the stages
    /// used), and stores it from registers. Every program of a tile waits for all the others, so
    /// they must run at once: the dispatchers launch no more programs than the GPU has SMs, and the
    /// interpreter runs as many at once. Any M, N and K, as for `matmul`.
    #[kernel(grid = (ways * cdiv(M, BM) * cdiv(N, BN),), warpgroups = 3, warpgroup_axis = wg, max_registers = 168,
             consts(BM = 128, BN = 128, BK = 64, STAGES = 6, SLOTS = 8, LOADS = 2 * SLOTS), ragged(M, N, K),
             instances(bf16, f16))]
    pub fn matmul_split<T>(
        a: Gmem<T, M, K>,
        b: Gmem<T, K, N>,
        c: GmemMut<T, M, N>,
        partial: GmemMut<f32, P, BN>,
        sems: GmemMut<u32, S>,
        ways: i32,
    ) {
        // Program `share` of the tile's `ways` takes K's steps [share * all / ways, (share + 1) * all / ways).
        let (tile, share, all_steps) = (program_id(0) / ways, program_id(0) % ways, cdiv(K, BK));
        let first = share * all_steps / ways;
        let steps = (share + 1) * all_steps / ways - first;
        let (ti, tj) = (tile / cdiv(N, BN), tile % cdiv(N, BN));
        // Each consumer's sum lives through both scopes below (the producer's goes unused).
        run_scoped(|acc: Acc<f32, 64, BN>| {
            run_scoped(
                collective_axes = [wg],
                |a_s: Smem<T, STAGES, 2, 64, BK, Swizzle128>,
                 b_s: Smem<T, STAGES, BK, BN, Swizzle128>,
                 ring: Pipeline<STAGES, 3, 2>| {
                    if warpgroup_id() == 0 {
                        pipeline_produce(ring, steps, |k, s, bar| {
                            load_ab::<T, 0>(a, b, a_s.at(s), b_s.at(s), bar, ti, tj, first + k);
                        });
                    } else {
                        let h = warpgroup_id() - 1;
                        pipeline_consume(ring, steps, |k, s| {
                            wgmma(acc, a_s.at(s).at(h), b_s.at(s));
                        });
                    }
                },
            );
            // The stages' shared memory, free now, holds the exchange's buffers.
            run_scoped(
                collective_axes = [wg],
                |part: Smem<f32, 2, SLOTS, 64, 32, Swizzle128>, loaded: Barrier<1, LOADS>| {
                    if warpgroup_id() > 0 {
                        let h = warpgroup_id() - 1;
                        // This consumer's half of the tile: its blocks of `partial` and its
                        // semaphores, one of each per program.
                        let slot = 2 * tile + h;
                        publish::<f32, BN>(acc, partial, sems, ways, slot, share);
                        let others = ways - 1;
                        #[unroll]
                        for q in 0..4 {
                            if (4 * h + q) % ways == share {
                                let sum = slice_sum::<f32, SLOTS, { q }>(
                                    acc, partial, part, loaded, ways, slot, share, others, h,
                                );
                                c.tile([2 * ti + h, 4 * tj + q], [64, 32]).store(sum.cast::<T>());
                            }
                        }
                    }
                },
            );
        });
    }

    /// C = A @ B for decoding-sized M (at most RN rows of A per program), computed as
    /// C^T = B^T A^T: 64 columns of B fill the wgmma's 64 rows (an MN-major operand, read straight
    /// from B's rows) and the RN rows of A its N, so the stages hold B, not the 64 - M zero rows a
    /// 64-row tile of A would add. The product is bound by how many of B's bytes are in flight, so
    /// each program streams its slabs of B through a deep ring: WGS - 1 consumer warpgroups take a
    /// 64-column slab each, and with SPLIT > 1 the programs of a cluster take shares of K and pass
    /// their f32 partial sums down the cluster (program SPLIT - 1 sends its sum into SPLIT - 2's
    /// `part` with `copy_smem_to_peer`, which adds its own and sends on), until program 0 adds its
    /// share and stores. Any M, N and K, as for `matmul`.
    #[kernel(grid = (SPLIT * cdiv(M, RN) * cdiv(N, 64 * WN),), cluster = (SPLIT,), warpgroups = WGS,
             warpgroup_axis = wg, max_registers = 168,
             consts(WN = WGS - 1, COPIES = WGS * KSUB, BK = 64 * KSUB), ragged(M, N, K),
             instances((bf16, 16, 2, 2, 9, 1), (bf16, 16, 3, 1, 10, 1), (bf16, 16, 2, 2, 8, 2), (bf16, 16, 2, 2, 8, 4),
                       (bf16, 32, 2, 2, 7, 1), (bf16, 32, 3, 1, 10, 1), (bf16, 32, 2, 2, 6, 2), (bf16, 32, 2, 2, 6, 4),
                       (bf16, 64, 2, 2, 6, 1), (bf16, 64, 3, 1, 8, 1), (bf16, 64, 2, 2, 6, 2), (bf16, 64, 2, 2, 6, 4),
                       (f16, 16, 2, 2, 9, 1), (f16, 16, 3, 1, 10, 1), (f16, 16, 2, 2, 8, 2), (f16, 16, 2, 2, 8, 4),
                       (f16, 32, 2, 2, 7, 1), (f16, 32, 3, 1, 10, 1), (f16, 32, 2, 2, 6, 2), (f16, 32, 2, 2, 6, 4),
                       (f16, 64, 2, 2, 6, 1), (f16, 64, 3, 1, 8, 1), (f16, 64, 2, 2, 6, 2), (f16, 64, 2, 2, 6, 4)))]
    pub fn matmul_skinny<
        T,
        const RN: usize,
        const WGS: usize,
        const KSUB: usize,
        const STAGES: usize,
        const SPLIT: usize,
    >(
        a: Gmem<T, M, K>,
        b: Gmem<T, K, N>,
        c: GmemMut<T, M, N>,
    ) {
        // Program `rank` of the cluster takes steps [rank * all / SPLIT, (rank + 1) * all / SPLIT).
        let (rank, unit, all_steps) = (cluster_rank(), program_id(0) / SPLIT, cdiv(K, BK));
        let first = rank * all_steps / SPLIT;
        let steps = (rank + 1) * all_steps / SPLIT - first;
        let (ti, tj) = (unit / cdiv(N, 64 * WN), unit % cdiv(N, 64 * WN));
        run_scoped(
            collective_axes = [wg],
            // A step is KSUB 64-wide slices of K: RN x 64 of A, and 64 x 64 of B per consumer.
            |a_s: Smem<T, STAGES, KSUB, RN, 64, Swizzle128>,
             b_s: Smem<T, STAGES, KSUB, WN, 64, 64, Swizzle128>,
             ring: Pipeline<STAGES, COPIES, WN>,
             #[when(SPLIT > 1)] part: Smem<f32, WN, 64, RN>,
             #[when(SPLIT > 1)] received: Barrier<WN>,
             c_s: Smem<T, WN, 64, RN>| {
                if warpgroup_id() == 0 {
                    pipeline_produce(ring, steps, |k, s, bar| {
                        #[unroll]
                        for q in 0..KSUB {
                            let kk = KSUB * (first + k) + q;
                            copy_gmem_to_smem(a.tile([ti, kk]), a_s.at(s).at(q), bar);
                            #[unroll]
                            for w in 0..WN {
                                copy_gmem_to_smem(b.tile([kk, WN * tj + w]), b_s.at(s).at(q).at(w), bar);
                            }
                        }
                    });
                } else {
                    let h = warpgroup_id() - 1;
                    run_scoped(|acc: Acc<f32, 64, RN>| {
                        pipeline_consume(ring, steps, |k, s| {
                            #[unroll]
                            for q in 0..KSUB {
                                wgmma(acc, b_s.at(s).at(q).at(h).t(), a_s.at(s).at(q).t());
                            }
                        });
                        if SPLIT > 1 {
                            pass_down::<f32, SPLIT>(acc, part, received, rank, h);
                        }
                        if rank == 0 {
                            // The 64 x RN block of C^T, through shared memory into C's RN x 64 tile.
                            c_s.at(h).store(acc.load().cast::<T>());
                            commit_smem();
                            c.tile([ti, WN * tj + h], [RN, 64]).store(c_s.at(h).t().load(Layout::Strided));
                        }
                    });
                }
            },
        );
    }
}

pub use gemm::{matmul, matmul_overlapped, matmul_skinny, matmul_split, ALL_PTX};

// The dispatchers (`dispatch.rs`): each `Variant` and its instance, for bf16 and f16; `Split`
// takes a workspace besides the operands ([`Workspace`]).
dispatchers! {
    dtypes {
        bf16_fns (T = bf16, A = f32): matmul_bf16_any, matmul_bf16_variant, interpret_bf16_any, interpret_bf16_variant;
        f16_fns (T = f16, A = f32): matmul_f16_any, matmul_f16_variant, interpret_f16_any, interpret_f16_variant;
    }
    {
        doc = "C = A @ B";
        args(a: T, b: T; c: T);
        variant = {
            let (m, n, k) = dims(a.shape(), b.shape());
            variant(m, n, k)
        };
        match |v| v {
            split Variant::Split(ways) => matmul_split<T> []
                (ways = ways, m = dim(a.shape(), 0), n = dim(b.shape(), 1)),
            Variant::Wide => matmul<T, 256, 4, 128, 1, 132>,
            Variant::Mid => matmul<T, 192, 4, 192, 1, 132>,
            Variant::Pair => matmul<T, 256, 3, 256, 2, 132>,
            Variant::Narrow => matmul<T, 64, 8, 64, 1, 132>,
            Variant::Overlapped => matmul_overlapped<T, 132>,
            Variant::Skinny(Rows::R16, Spread::One) => matmul_skinny<T, 16, 2, 2, 9, 1>,
            Variant::Skinny(Rows::R16, Spread::Two) => matmul_skinny<T, 16, 3, 1, 10, 1>,
            Variant::Skinny(Rows::R16, Spread::SplitK2) => matmul_skinny<T, 16, 2, 2, 8, 2>,
            Variant::Skinny(Rows::R16, Spread::SplitK4) => matmul_skinny<T, 16, 2, 2, 8, 4>,
            Variant::Skinny(Rows::R32, Spread::One) => matmul_skinny<T, 32, 2, 2, 7, 1>,
            Variant::Skinny(Rows::R32, Spread::Two) => matmul_skinny<T, 32, 3, 1, 10, 1>,
            Variant::Skinny(Rows::R32, Spread::SplitK2) => matmul_skinny<T, 32, 2, 2, 6, 2>,
            Variant::Skinny(Rows::R32, Spread::SplitK4) => matmul_skinny<T, 32, 2, 2, 6, 4>,
            Variant::Skinny(Rows::R64, Spread::One) => matmul_skinny<T, 64, 2, 2, 6, 1>,
            Variant::Skinny(Rows::R64, Spread::Two) => matmul_skinny<T, 64, 3, 1, 8, 1>,
            Variant::Skinny(Rows::R64, Spread::SplitK2) => matmul_skinny<T, 64, 2, 2, 6, 2>,
            Variant::Skinny(Rows::R64, Spread::SplitK4) => matmul_skinny<T, 64, 2, 2, 6, 4>,
        }
    }
}

/// M, N and K from A's and B's shapes; 0 for a dimension a tensor of the wrong rank lacks, which
/// the kernel's launch then reports (`Error::ShapeRank`), whatever the variant.
fn dims(a: &[usize], b: &[usize]) -> (usize, usize, usize) {
    (dim(a, 0), dim(b, 1), dim(a, 1))
}

/// The kernel variants the dispatchers choose from.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Variant {
    /// 128 x 256 tiles, no clusters.
    Wide,
    /// 128 x 192 tiles (four stages): where wide tiles leave SMs idle and these do not make
    /// another wave (1152 x 2048: 72 wide tiles or 99 of these on the 132 SMs).
    Mid,
    /// 128 x 256 tiles, 2 x 1 clusters sharing B.
    Pair,
    /// 128 x 128 tiles taking turns in the accumulator, so that each tile's epilogue runs under
    /// the next one's first wgmmas: where wide tiles leave the last wave part-empty, or waste
    /// much of a last, partial column of tiles.
    Overlapped,
    /// 128 x 64 tiles with eight stages: for a skinny M, where wide tiles leave most SMs idle.
    Narrow,
    /// 128 x 128 tiles, K split between this many programs per tile, which hand each other their
    /// sums through global memory ([`Workspace`]): for a skinny M.
    Split(usize),
    /// Decoding-sized M: C^T = B^T A^T, 64-column slabs of B streamed through deep rings.
    Skinny(waves::Rows, waves::Spread),
}

/// The variant for C = A @ B with A M x K and B K x N: `TESSEL_MATMUL=wide|mid|pair|overlapped|narrow`,
/// a split of K (`split`, `split3` .. `split32`) or a skinny kernel's name (`skinny16`,
/// `skinny64x2`, `skinny32k4`: [`waves::skinny_named`]) overrides [`choose`] (for tuning).
pub fn variant(m: usize, n: usize, k: usize) -> Variant {
    let chosen = std::env::var("TESSEL_MATMUL").ok().and_then(|name| Variant::named(&name));
    chosen.unwrap_or_else(|| choose(m, n, k))
}

impl Variant {
    /// The variant `TESSEL_MATMUL` names: `pair`, or a kernel every dispatcher has: a tile size
    /// (`wide`, `mid`, `overlapped`, `narrow`), a split of K (`split`: 2 ways, `split3` ..
    /// `split32`) or a skinny kernel (`skinny16`, `skinny64x2`, `skinny32k4`;
    /// [`waves::Kernel::named`]).
    pub fn named(name: &str) -> Option<Variant> {
        match name.trim() {
            "pair" => Some(Variant::Pair),
            other => waves::Kernel::named(other).map(Variant::from),
        }
    }
}

/// The kernels every dispatcher has are variants of this one too.
impl From<waves::Kernel> for Variant {
    fn from(k: waves::Kernel) -> Variant {
        match k {
            waves::Kernel::Wide => Variant::Wide,
            waves::Kernel::Mid => Variant::Mid,
            waves::Kernel::Overlapped => Variant::Overlapped,
            waves::Kernel::Narrow => Variant::Narrow,
            waves::Kernel::Split(ways) => Variant::Split(ways),
            waves::Kernel::Skinny(rows, spread) => Variant::Skinny(rows, spread),
        }
    }
}

/// The variant for a shape, without the override: what every dispatcher chooses
/// ([`waves::Kernel::choose`]): a skinny kernel for a decoding-sized M (64 rows or fewer), K split
/// over the programs of 128 x 128 tiles where few of those would leave SMs idle and K is long
/// ([`waves::split_ways`]), else the tiles whose waves finish first: wide ones, 128 x 192 ones,
/// 128 x 128 ones with overlapped epilogues, or 128 x 64 ones.
///
/// (`Pair` measured the same as `Wide` on the H200 under a sustained load, within a percent
/// either way, and up to 1.5% slower with the GPU idle between launches: the multicast saves L2
/// bandwidth these shapes do not lack.)
pub fn choose(m: usize, n: usize, k: usize) -> Variant {
    waves::Kernel::choose(m, n, k, 2).into()
}
