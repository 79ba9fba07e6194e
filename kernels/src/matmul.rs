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
//! For skinny outputs, where 128 x 256 tiles would leave most SMs idle, `split_k!` splits K
//! instead: several programs compute one 128 x 128 tile, each a share of K; they hand each other
//! their f32 sums through global memory ([`Workspace`]) and semaphores, and each adds up and
//! stores the slices of the tile it owns, the others' sums of them copied in by TMA into the
//! shared memory its pipeline's stages used.
//!
//! Where wide tiles would leave the last wave part-empty, 128 x 192 tiles may fill it (the same
//! kernel text), or `matmul_overlapped!` takes 128 x 128 tiles, two at a time in each consumer's
//! 64 x 256 accumulator, so that one tile's epilogue runs under the next one's first wgmmas
//! ([`choose`] weighs the waves).
//!
//! For decoding-sized M (64 rows or fewer), `skinny!` computes C^T = B^T A^T instead, so that 64
//! columns of B fill the wgmma's rows and the few rows of A its N, streaming each 64-column slab
//! of B through a deep ring of stages ([`waves::skinny`] picks rows, slabs per program and a
//! split of K).
//!
//! Every kernel is `ragged(M, N, K)`: any M, N and K (N and K in TMA's 16-byte rows), the last
//! tiles overhanging the arrays.
//!
//! One kernel text (`matmul!`), two ways of placing programs:
//! - `single`: no clusters;
//! - `pair`: 2 x 1 clusters compute two tiles stacked along M, which share their B slices: each
//!   program loads half of every B slice and multicasts it to both, and releases each stage in
//!   both programs.

use tessel::prelude::*;

use crate::waves::{self, dim, Rows, Spread};
use crate::workspace::Workspace;

/// C = A @ B with f32 accumulation, A M x K and B K x N row-major, C in the element type `$t`,
/// 128 x BN tiles. Any M, N and K: the last tiles overhang the arrays, where TMA reads zeros
/// (which add nothing to the products) and drops what a store writes outside. Each consumer
/// stores its 64 x BN result in 64 x CN pieces (CN = BN unless given) through one buffer: with
/// 128 x 256 tiles, pieces of 128 columns leave room for a fourth stage (4 x 48 KiB of stages and
/// 32 KiB of output buffers), which measured 1% faster on the H200 at 2048^3 and 8192 x 8192 x
/// 1024, and the same at 8192^3 (commit b3d724d). A tile's result, converted (`done`, half the
/// accumulator's registers), is stored one piece per K step of the next tile,
/// after that step's wgmmas are issued, so that the tensor cores are not idle while it goes out:
/// 0.3-0.7% faster at 4096^3, 8192^3 and 8192 x 8192 x 1024 on the H200, 0.6-0.9% slower at 2048^3,
/// where each program has one tile (commit e8dbbf2). The programs take their units GROUP = 16
/// rows at a time: the 132 running 128 x 256 tiles then span 16 row panels of A and 8
/// or 9 column panels of B, about as many bytes of each (GROUP = 8: B four times A), which
/// measured 0.6% faster at 4096^3 on the H200 (commit f97a9e4; the other orders tried are in
/// `docs/experiments.md`).
#[macro_export]
macro_rules! matmul {
    (single, $name:ident, $t:ident, BN = $bn:literal, STAGES = $stages:literal) => {
        $crate::matmul!(single, $name, $t, BN = $bn, STAGES = $stages, CN = $bn);
    };
    (single, $name:ident, $t:ident, BN = $bn:literal, STAGES = $stages:literal, CN = $cn:literal) => {
        $crate::matmul!(single, $name, $t, BN = $bn, STAGES = $stages, CN = $cn, PROGRAMS = 132);
    };
    (single, $name:ident, $t:ident, BN = $bn:literal, STAGES = $stages:literal, CN = $cn:literal,
     PROGRAMS = $programs:literal) => {
        $crate::matmul!(@kernel $name, $t, $bn, $stages, $cn, $programs, cluster = 1, units = (cdiv(M, BM), cdiv(N, BN)),
                tile = (ur, uc), b_copy = (), releases = 2, release = ());
    };
    (pair, $name:ident, $t:ident, BN = $bn:literal, STAGES = $stages:literal) => {
        $crate::matmul!(@kernel $name, $t, $bn, $stages, $bn, 132, cluster = 2, units = (cdiv(M, 2 * BM), cdiv(N, BN)),
                tile = (2 * ur + cluster_rank(), uc), b_copy = (, multicast = true),
                releases = 4, release = (, cluster = true));
    };
    (@kernel $name:ident, $t:ident, $bn:literal, $stages:literal, $cn:literal, $programs:literal,
     cluster = $cluster:literal,
     units = ($rows:expr, $cols:expr), tile = ($ti:expr, $tj:expr), b_copy = ($($b_flag:tt)*),
     releases = $releases:literal, release = ($($release:tt)*)) => {
        #[kernel(grid = ($programs,), cluster = ($cluster,), warpgroups = 3, warpgroup_axis = wg, max_registers = 168,
                 consts(BM = 128, BN = $bn, CN = $cn, BK = 64, STAGES = $stages, GROUP = 16), ragged(M, N, K))]
        pub fn $name(a: Gmem<$t, M, K>, b: Gmem<$t, K, N>, c: GmemMut<$t, M, N>) {
            // Work units (a tile, or a cluster's pair of tiles): cluster `cl` takes every `clusters`-th.
            let (unit_rows, unit_cols, steps) = ($rows, $cols, cdiv(K, BK));
            let (cl, clusters) = (program_id(0) / $cluster, num_programs(0) / $cluster);
            let units = unit_rows * unit_cols;
            run_scoped(
                collective_axes = [wg],
                |a_s: Smem<$t, STAGES, 2, 64, BK, Swizzle128>,
                 b_s: Smem<$t, STAGES, BK, BN, Swizzle128>,
                 c_s: Smem<$t, 2, 64, CN, Swizzle128>,
                 // Three copies fill a stage; each consumer (of each program, with clusters) releases it.
                 ring: Pipeline<STAGES, 3, $releases>| {
                    if warpgroup_id() == 0 {
                        // Producer. (Each role has its own loop: `setmaxnreg` needs the code after it
                        // to fit in the registers it leaves.)
                        set_max_registers(40);
                        for t in 0..(units - cl + clusters - 1) / clusters {
                            // L2-friendly order: GROUP unit-rows at a time, walking down each column.
                            let u = cl + t * clusters;
                            let first = u / (GROUP * unit_cols) * GROUP;
                            let rows = min(unit_rows - first, GROUP);
                            let (ur, uc) = (first + u % (GROUP * unit_cols) % rows, u % (GROUP * unit_cols) / rows);
                            let (ti, tj) = ($ti, $tj);
                            pipeline_produce(ring, steps, |k, s, bar| {
                                copy_gmem_to_smem(a.tile([2 * ti, k]), a_s.at(s).at(0), bar);
                                copy_gmem_to_smem(a.tile([2 * ti + 1, k]), a_s.at(s).at(1), bar);
                                copy_gmem_to_smem(b.tile([k, tj]), b_s.at(s), bar $($b_flag)*);
                            });
                        }
                    } else {
                        // Consumers: 64 rows each.
                        set_max_registers(232);
                        let h = warpgroup_id() - 1;
                        run_scoped(|acc: Acc<f32, 64, BN>| {
                            let mine = (units - cl + clusters - 1) / clusters;
                            // The previous tile's result, converted to the output type, and where it goes.
                            let mut done = splat::<$t>(0.0, [64, BN]).to_layout(Layout::Wgmma);
                            let (mut pi, mut pj) = (0, 0);
                            for t in 0..mine {
                                let u = cl + t * clusters;
                                let first = u / (GROUP * unit_cols) * GROUP;
                                let rows = min(unit_rows - first, GROUP);
                                let (ur, uc) = (first + u % (GROUP * unit_cols) % rows, u % (GROUP * unit_cols) / rows);
                                let (ti, tj) = ($ti, $tj);
                                // The tile's first step overwrites the accumulator (no zeroing).
                                pipeline_consume(ring, steps, |k, s| {
                                    wgmma(acc, a_s.at(s).at(h), b_s.at(s), accumulate = k > 0);
                                    // The previous tile's result, a piece per step (all in the one step of a K of at
                                    // most 64), under these wgmmas.
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
                                } $($release)*);
                                if t + 1 < mine {
                                    done = acc.load().cast::<$t>();
                                }
                                (pi, pj) = (ti, tj);
                            }
                            // The last tile's result, from the accumulator.
                            #[unroll]
                            for q in 0..BN / CN {
                                if mine > 0 {
                                    wait_smem_to_gmem(0);
                                    c_s.at(h).store(acc.slice([.., CN * q..CN * q + CN]).load().cast::<$t>());
                                    commit_smem();
                                    copy_smem_to_gmem(c_s.at(h), c.tile([2 * pi + h, (BN / CN) * pj + q]));
                                }
                            }
                        });
                    }
                },
            );
        }
    };
}

/// C = A @ B with 128 x 128 tiles whose epilogue runs under the next tile's first wgmmas: each
/// consumer's 64 x 256 accumulator holds two 64 x 128 tiles that take turns (`half`), so that
/// while a tile's first step multiplies into one half, the previous tile's result is stored from
/// the other. Any M, N and K, as for `matmul!`.
#[macro_export]
macro_rules! matmul_overlapped {
    ($name:ident, $t:ident, STAGES = $stages:literal, PROGRAMS = $programs:literal) => {
        #[kernel(grid = ($programs,), warpgroups = 3, warpgroup_axis = wg, max_registers = 168,
                                 consts(BM = 128, BN = 128, BK = 64, STAGES = $stages, GROUP = 8), ragged(M, N, K))]
        pub fn $name(a: Gmem<$t, M, K>, b: Gmem<$t, K, N>, c: GmemMut<$t, M, N>) {
            let (tile_rows, tile_cols, steps) = (cdiv(M, BM), cdiv(N, BN), cdiv(K, BK));
            let (p, programs) = (program_id(0), num_programs(0));
            let tiles = tile_rows * tile_cols;
            // This program's tiles: p, p + programs, ..
            let mine = (tiles - p + programs - 1) / programs;
            run_scoped(
                collective_axes = [wg],
                |a_s: Smem<$t, STAGES, 2, 64, BK, Swizzle128>,
                 b_s: Smem<$t, STAGES, BK, BN, Swizzle128>,
                 c_s: Smem<$t, 2, 64, BN, Swizzle128>,
                 ring: Pipeline<STAGES, 3, 2>| {
                    if warpgroup_id() == 0 {
                        set_max_registers(40);
                        for t in 0..mine {
                            // L2-friendly order: GROUP tile-rows at a time, walking down each column.
                            let u = p + t * programs;
                            let first = u / (GROUP * tile_cols) * GROUP;
                            let rows = min(tile_rows - first, GROUP);
                            let (ti, tj) = (first + u % (GROUP * tile_cols) % rows, u % (GROUP * tile_cols) / rows);
                            pipeline_produce(ring, steps, |k, s, bar| {
                                copy_gmem_to_smem(a.tile([2 * ti, k]), a_s.at(s).at(0), bar);
                                copy_gmem_to_smem(a.tile([2 * ti + 1, k]), a_s.at(s).at(1), bar);
                                copy_gmem_to_smem(b.tile([k, tj]), b_s.at(s), bar);
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
                                        let u = p + t * programs;
                                        let first = u / (GROUP * tile_cols) * GROUP;
                                        let rows = min(tile_rows - first, GROUP);
                                        let (ti, tj) =
                                            (first + u % (GROUP * tile_cols) % rows, u % (GROUP * tile_cols) / rows);
                                        // Nothing is in flight here; but ptxas, not seeing that
                                        // the other half's wgmmas were waited for (on the way
                                        // around the loop), would otherwise wait for this tile's
                                        // first ones before the epilogue reads the other half.
                                        wgmma_wait(0);
                                        pipeline_consume(ring, steps, |k, s| {
                                            let out = acc.slice([.., this_half..this_half + BN]);
                                            wgmma(out, a_s.at(s).at(h), b_s.at(s), accumulate = k > 0);
                                            if k == 0 && t > 0 {
                                                // The previous tile's result, while this one's
                                                // first wgmmas run. Its store must have read c_s
                                                // before c_s is rewritten.
                                                let done = acc.slice([.., other_half..other_half + BN]);
                                                wait_smem_to_gmem(0);
                                                c_s.at(h).store(done.load().cast::<$t>());
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
                                    c_s.at(h).store(acc.slice([.., BN * half..BN * half + BN]).load().cast::<$t>());
                                    commit_smem();
                                    copy_smem_to_gmem(c_s.at(h), c.tile([2 * pi + h, pj]));
                                }
                            }
                        });
                    }
                },
            );
        }
    };
}

/// C = A @ B for skinny shapes: K split over `ways` programs per 128 x 128 tile of C, each
/// multiplying an equal share of K through six stages, their partial products summed as
/// `split_k_text!` (`kernels/src/workspace.rs`) says: through global memory (`partial`, `sems`), each
/// program adding up the 64 x 32 slices of the tile it owns in buffers that take the stages'
/// shared memory once the main loop is done (a second `run_scoped`), and storing them from
/// registers. Any M, N and K, as for `matmul!`.
macro_rules! split_k {
    ($name:ident, $t:ident) => {
        split_k_text!(split_k!(@kernel $name, $t), epilogue = (
            c.tile([2 * ti + h, 4 * tj + q], [64, 32]).store(sum.cast::<$t>());
        ));
    };
    (@kernel $name:ident, $t:ident, shares = ($($shares:tt)*), exchange = ($($exchange:tt)*)) => {
        #[kernel(grid = (ways * cdiv(M, BM) * cdiv(N, BN),), warpgroups = 3,
                 warpgroup_axis = wg, max_registers = 168,
                 consts(BM = 128, BN = 128, BK = 64, STAGES = 6, SLOTS = 8, LOADS = 2 * SLOTS), ragged(M, N, K))]
        pub fn $name(
            a: Gmem<$t, M, K>,
            b: Gmem<$t, K, N>,
            c: GmemMut<$t, M, N>,
            partial: GmemMut<f32, P, BN>,
            sems: GmemMut<u32, S>,
            ways: i32,
        ) {
            $($shares)*
            // Each consumer's sum lives through both scopes below (the producer's goes unused).
            run_scoped(|acc: Acc<f32, 64, BN>| {
                run_scoped(
                    collective_axes = [wg],
                    |a_s: Smem<$t, STAGES, 2, 64, BK, Swizzle128>,
                     b_s: Smem<$t, STAGES, BK, BN, Swizzle128>,
                     ring: Pipeline<STAGES, 3, 2>| {
                        if warpgroup_id() == 0 {
                            pipeline_produce(ring, steps, |k, s, bar| {
                                copy_gmem_to_smem(a.tile([2 * ti, first + k]), a_s.at(s).at(0), bar);
                                copy_gmem_to_smem(a.tile([2 * ti + 1, first + k]), a_s.at(s).at(1), bar);
                                copy_gmem_to_smem(b.tile([first + k, tj]), b_s.at(s), bar);
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
                            $($exchange)*
                        }
                    },
                );
            });
        }
    };
}

/// C = A @ B for decoding-sized M (at most RN rows of A per program), computed as C^T = B^T A^T:
/// 64 columns of B fill the wgmma's 64 rows (an MN-major operand, read straight from B's rows)
/// and the RN rows of A its N, so the stages hold B, not the 64 - M zero rows a 64-row tile of A
/// would add. The product is bound by how many of B's bytes are in flight, so each program streams
/// its slabs of B through a deep ring: WN consumer warpgroups take a 64-column slab each, and
/// with SPLIT > 1 the programs of a cluster take shares of K and pass their f32 partial sums
/// down the cluster (program SPLIT - 1 sends to SPLIT - 2, which adds its own and sends on),
/// until program 0 adds its share and stores. Any M, N and K, as for `matmul!`.
macro_rules! skinny {
    ($name:ident, $t:ident, RN = $rn:literal, WARPGROUPS = $wgs:literal, KSUB = $ksub:literal,
     STAGES = $stages:literal, SPLIT = $split:tt) => {
        skinny_split!(skinny!(@kernel $name, $t, $rn, $wgs, $ksub, $stages, $split), f32, SPLIT = $split);
    };
    (@kernel $name:ident, $t:ident, $rn:literal, $wgs:literal, $ksub:literal, $stages:literal, $split:literal,
     cluster = $cluster:tt, part = ($($part:tt)*), exchange = ($($exchange:tt)*),
     shares = ($($shares:tt)*)) => {
        #[kernel(grid = (SPLIT * cdiv(M, RN) * cdiv(N, 64 * WN),), cluster = $cluster, warpgroups = $wgs,
                 warpgroup_axis = wg, max_registers = 168,
                 consts(RN = $rn, WN = $wgs - 1, KSUB = $ksub, COPIES = $wgs * $ksub, BK = 64 * $ksub,
                        STAGES = $stages, SPLIT = $split),
                 ragged(M, N, K))]
        pub fn $name(a: Gmem<$t, M, K>, b: Gmem<$t, K, N>, c: GmemMut<$t, M, N>) {
            $($shares)*
            run_scoped(
                collective_axes = [wg],
                // A step is KSUB 64-wide slices of K: RN x 64 of A, and 64 x 64 of B per consumer.
                |a_s: Smem<$t, STAGES, KSUB, RN, 64, Swizzle128>,
                 b_s: Smem<$t, STAGES, KSUB, WN, 64, 64, Swizzle128>,
                 ring: Pipeline<STAGES, COPIES, WN>,
                 $($part)*
                 c_s: Smem<$t, WN, 64, RN>| {
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
                            $($exchange)*
                            if rank == 0 {
                                // The 64 x RN block of C^T, through shared memory into C's RN x 64 tile.
                                c_s.at(h).store(acc.load().cast::<$t>());
                                commit_smem();
                                c.tile([ti, WN * tj + h], [RN, 64]).store(c_s.at(h).t().load(Layout::Strided));
                            }
                        });
                    }
                },
            );
        }
    };
}

matmul!(single, matmul_bf16, bf16, BN = 256, STAGES = 4, CN = 128);
matmul!(single, matmul_f16, f16, BN = 256, STAGES = 4, CN = 128);
matmul!(single, matmul_bf16_n192, bf16, BN = 192, STAGES = 4);
matmul!(single, matmul_f16_n192, f16, BN = 192, STAGES = 4);
matmul!(pair, matmul_bf16_2x1, bf16, BN = 256, STAGES = 3);
matmul!(pair, matmul_f16_2x1, f16, BN = 256, STAGES = 3);
matmul!(single, matmul_bf16_n64, bf16, BN = 64, STAGES = 8);
matmul!(single, matmul_f16_n64, f16, BN = 64, STAGES = 8);
matmul_overlapped!(matmul_bf16_overlapped, bf16, STAGES = 6, PROGRAMS = 132);
matmul_overlapped!(matmul_f16_overlapped, f16, STAGES = 6, PROGRAMS = 132);
split_k!(matmul_bf16_split, bf16);
split_k!(matmul_f16_split, f16);
skinny!(matmul_bf16_skinny16, bf16, RN = 16, WARPGROUPS = 2, KSUB = 2, STAGES = 9, SPLIT = 1);
skinny!(matmul_bf16_skinny16x2, bf16, RN = 16, WARPGROUPS = 3, KSUB = 1, STAGES = 10, SPLIT = 1);
skinny!(matmul_bf16_skinny16k2, bf16, RN = 16, WARPGROUPS = 2, KSUB = 2, STAGES = 8, SPLIT = 2);
skinny!(matmul_bf16_skinny16k4, bf16, RN = 16, WARPGROUPS = 2, KSUB = 2, STAGES = 8, SPLIT = 4);
skinny!(matmul_bf16_skinny32, bf16, RN = 32, WARPGROUPS = 2, KSUB = 2, STAGES = 7, SPLIT = 1);
skinny!(matmul_bf16_skinny32x2, bf16, RN = 32, WARPGROUPS = 3, KSUB = 1, STAGES = 10, SPLIT = 1);
skinny!(matmul_bf16_skinny32k2, bf16, RN = 32, WARPGROUPS = 2, KSUB = 2, STAGES = 6, SPLIT = 2);
skinny!(matmul_bf16_skinny32k4, bf16, RN = 32, WARPGROUPS = 2, KSUB = 2, STAGES = 6, SPLIT = 4);
skinny!(matmul_bf16_skinny64, bf16, RN = 64, WARPGROUPS = 2, KSUB = 2, STAGES = 6, SPLIT = 1);
skinny!(matmul_bf16_skinny64x2, bf16, RN = 64, WARPGROUPS = 3, KSUB = 1, STAGES = 8, SPLIT = 1);
skinny!(matmul_bf16_skinny64k2, bf16, RN = 64, WARPGROUPS = 2, KSUB = 2, STAGES = 6, SPLIT = 2);
skinny!(matmul_bf16_skinny64k4, bf16, RN = 64, WARPGROUPS = 2, KSUB = 2, STAGES = 6, SPLIT = 4);
skinny!(matmul_f16_skinny16, f16, RN = 16, WARPGROUPS = 2, KSUB = 2, STAGES = 9, SPLIT = 1);
skinny!(matmul_f16_skinny16x2, f16, RN = 16, WARPGROUPS = 3, KSUB = 1, STAGES = 10, SPLIT = 1);
skinny!(matmul_f16_skinny16k2, f16, RN = 16, WARPGROUPS = 2, KSUB = 2, STAGES = 8, SPLIT = 2);
skinny!(matmul_f16_skinny16k4, f16, RN = 16, WARPGROUPS = 2, KSUB = 2, STAGES = 8, SPLIT = 4);
skinny!(matmul_f16_skinny32, f16, RN = 32, WARPGROUPS = 2, KSUB = 2, STAGES = 7, SPLIT = 1);
skinny!(matmul_f16_skinny32x2, f16, RN = 32, WARPGROUPS = 3, KSUB = 1, STAGES = 10, SPLIT = 1);
skinny!(matmul_f16_skinny32k2, f16, RN = 32, WARPGROUPS = 2, KSUB = 2, STAGES = 6, SPLIT = 2);
skinny!(matmul_f16_skinny32k4, f16, RN = 32, WARPGROUPS = 2, KSUB = 2, STAGES = 6, SPLIT = 4);
skinny!(matmul_f16_skinny64, f16, RN = 64, WARPGROUPS = 2, KSUB = 2, STAGES = 6, SPLIT = 1);
skinny!(matmul_f16_skinny64x2, f16, RN = 64, WARPGROUPS = 3, KSUB = 1, STAGES = 8, SPLIT = 1);
skinny!(matmul_f16_skinny64k2, f16, RN = 64, WARPGROUPS = 2, KSUB = 2, STAGES = 6, SPLIT = 2);
skinny!(matmul_f16_skinny64k4, f16, RN = 64, WARPGROUPS = 2, KSUB = 2, STAGES = 6, SPLIT = 4);

/// Picks the variant for a shape (see [`variant`]): one function launches it on the GPU, one runs
/// it in the interpreter, and one launches a variant named by the caller (for tuning). `Split`
/// takes a workspace besides the operands ([`Workspace`]).
macro_rules! dispatch {
    ($launch:ident, $launch_variant:ident, $interpret:ident, $interpret_variant:ident, $t:ident,
     split = $split:ident,
     $($variant:pat => $kernel:ident),*) => {
        /// C = A @ B on the GPU with the variant for this shape.
        pub fn $launch(
            stream: &impl tessel::AsStream,
            a: &DeviceTensor<$t>,
            b: &DeviceTensor<$t>,
            c: &mut DeviceTensor<$t>,
        ) -> tessel::Result<()> {
            let (m, n, k) = dims(a.shape(), b.shape());
            $launch_variant(variant(m, n, k), stream, a, b, c)
        }

        /// C = A @ B on the GPU with variant `v`.
        pub fn $launch_variant(
            v: Variant,
            stream: &impl tessel::AsStream,
            a: &DeviceTensor<$t>,
            b: &DeviceTensor<$t>,
            c: &mut DeviceTensor<$t>,
        ) -> tessel::Result<()> {
            match v {
                Variant::Split(ways) => {
                    let (m, n, _) = dims(a.shape(), b.shape());
                    Workspace::<f32>::on_device(stream, m, n, ways, |partial, sems, ways| {
                        $split::launch(stream, a, b, c, partial, sems, ways)
                    })
                }
                $($variant => $kernel::launch(stream, a, b, c),)*
            }
        }

        /// C = A @ B in the interpreter, with the variant the GPU would run.
        pub fn $interpret(a: &HostTensor<$t>, b: &HostTensor<$t>, c: &mut HostTensor<$t>) -> tessel::Result<()> {
            let (m, n, k) = dims(a.shape(), b.shape());
            $interpret_variant(variant(m, n, k), a, b, c)
        }

        /// C = A @ B in the interpreter with variant `v`.
        pub fn $interpret_variant(
            v: Variant,
            a: &HostTensor<$t>,
            b: &HostTensor<$t>,
            c: &mut HostTensor<$t>,
        ) -> tessel::Result<()> {
            match v {
                Variant::Split(ways) => {
                    let (m, n, _) = dims(a.shape(), b.shape());
                    Workspace::<f32>::on_host(m, n, ways, |partial, sems, ways| {
                        $split::interpret(a, b, c, partial, sems, ways)
                    })
                }
                $($variant => $kernel::interpret(a, b, c),)*
            }
        }
    };
}

dispatch!(matmul_bf16_any, matmul_bf16_variant, interpret_bf16_any, interpret_bf16_variant, bf16, split = matmul_bf16_split,
          Variant::Wide => matmul_bf16,
          Variant::Mid => matmul_bf16_n192,
          Variant::Pair => matmul_bf16_2x1,
          Variant::Overlapped => matmul_bf16_overlapped,
          Variant::Narrow => matmul_bf16_n64,
          Variant::Skinny(Rows::R16, Spread::One) => matmul_bf16_skinny16,
          Variant::Skinny(Rows::R16, Spread::Two) => matmul_bf16_skinny16x2,
          Variant::Skinny(Rows::R16, Spread::SplitK2) => matmul_bf16_skinny16k2,
          Variant::Skinny(Rows::R16, Spread::SplitK4) => matmul_bf16_skinny16k4,
          Variant::Skinny(Rows::R32, Spread::One) => matmul_bf16_skinny32,
          Variant::Skinny(Rows::R32, Spread::Two) => matmul_bf16_skinny32x2,
          Variant::Skinny(Rows::R32, Spread::SplitK2) => matmul_bf16_skinny32k2,
          Variant::Skinny(Rows::R32, Spread::SplitK4) => matmul_bf16_skinny32k4,
          Variant::Skinny(Rows::R64, Spread::One) => matmul_bf16_skinny64,
          Variant::Skinny(Rows::R64, Spread::Two) => matmul_bf16_skinny64x2,
          Variant::Skinny(Rows::R64, Spread::SplitK2) => matmul_bf16_skinny64k2,
          Variant::Skinny(Rows::R64, Spread::SplitK4) => matmul_bf16_skinny64k4);
dispatch!(matmul_f16_any, matmul_f16_variant, interpret_f16_any, interpret_f16_variant, f16, split = matmul_f16_split,
          Variant::Wide => matmul_f16,
          Variant::Mid => matmul_f16_n192,
          Variant::Pair => matmul_f16_2x1,
          Variant::Overlapped => matmul_f16_overlapped,
          Variant::Narrow => matmul_f16_n64,
          Variant::Skinny(Rows::R16, Spread::One) => matmul_f16_skinny16,
          Variant::Skinny(Rows::R16, Spread::Two) => matmul_f16_skinny16x2,
          Variant::Skinny(Rows::R16, Spread::SplitK2) => matmul_f16_skinny16k2,
          Variant::Skinny(Rows::R16, Spread::SplitK4) => matmul_f16_skinny16k4,
          Variant::Skinny(Rows::R32, Spread::One) => matmul_f16_skinny32,
          Variant::Skinny(Rows::R32, Spread::Two) => matmul_f16_skinny32x2,
          Variant::Skinny(Rows::R32, Spread::SplitK2) => matmul_f16_skinny32k2,
          Variant::Skinny(Rows::R32, Spread::SplitK4) => matmul_f16_skinny32k4,
          Variant::Skinny(Rows::R64, Spread::One) => matmul_f16_skinny64,
          Variant::Skinny(Rows::R64, Spread::Two) => matmul_f16_skinny64x2,
          Variant::Skinny(Rows::R64, Spread::SplitK2) => matmul_f16_skinny64k2,
          Variant::Skinny(Rows::R64, Spread::SplitK4) => matmul_f16_skinny64k4);

/// M, N and K from A's and B's shapes; 0 for a dimension a tensor of the wrong rank lacks, which
/// the kernel's launch then reports (`Error::ShapeRank`), whatever the variant.
fn dims(a: &[usize], b: &[usize]) -> (usize, usize, usize) {
    (dim(a, 0), dim(b, 1), dim(a, 1))
}

/// The kernel variants `dispatch!` chooses from.
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

/// Every instantiation's name and PTX (for `ptxas` checks and `TESSEL_DUMP_PTX`).
pub const ALL_PTX: &[(&str, &str)] = &[
    ("matmul_bf16", matmul_bf16::PTX),
    ("matmul_f16", matmul_f16::PTX),
    ("matmul_bf16_n192", matmul_bf16_n192::PTX),
    ("matmul_f16_n192", matmul_f16_n192::PTX),
    ("matmul_bf16_2x1", matmul_bf16_2x1::PTX),
    ("matmul_f16_2x1", matmul_f16_2x1::PTX),
    ("matmul_bf16_n64", matmul_bf16_n64::PTX),
    ("matmul_f16_n64", matmul_f16_n64::PTX),
    ("matmul_bf16_overlapped", matmul_bf16_overlapped::PTX),
    ("matmul_f16_overlapped", matmul_f16_overlapped::PTX),
    ("matmul_bf16_split", matmul_bf16_split::PTX),
    ("matmul_f16_split", matmul_f16_split::PTX),
    ("matmul_bf16_skinny16", matmul_bf16_skinny16::PTX),
    ("matmul_bf16_skinny16x2", matmul_bf16_skinny16x2::PTX),
    ("matmul_bf16_skinny16k2", matmul_bf16_skinny16k2::PTX),
    ("matmul_bf16_skinny16k4", matmul_bf16_skinny16k4::PTX),
    ("matmul_bf16_skinny32", matmul_bf16_skinny32::PTX),
    ("matmul_bf16_skinny32x2", matmul_bf16_skinny32x2::PTX),
    ("matmul_bf16_skinny32k2", matmul_bf16_skinny32k2::PTX),
    ("matmul_bf16_skinny32k4", matmul_bf16_skinny32k4::PTX),
    ("matmul_bf16_skinny64", matmul_bf16_skinny64::PTX),
    ("matmul_bf16_skinny64x2", matmul_bf16_skinny64x2::PTX),
    ("matmul_bf16_skinny64k2", matmul_bf16_skinny64k2::PTX),
    ("matmul_bf16_skinny64k4", matmul_bf16_skinny64k4::PTX),
    ("matmul_f16_skinny16", matmul_f16_skinny16::PTX),
    ("matmul_f16_skinny16x2", matmul_f16_skinny16x2::PTX),
    ("matmul_f16_skinny16k2", matmul_f16_skinny16k2::PTX),
    ("matmul_f16_skinny16k4", matmul_f16_skinny16k4::PTX),
    ("matmul_f16_skinny32", matmul_f16_skinny32::PTX),
    ("matmul_f16_skinny32x2", matmul_f16_skinny32x2::PTX),
    ("matmul_f16_skinny32k2", matmul_f16_skinny32k2::PTX),
    ("matmul_f16_skinny32k4", matmul_f16_skinny32k4::PTX),
    ("matmul_f16_skinny64", matmul_f16_skinny64::PTX),
    ("matmul_f16_skinny64x2", matmul_f16_skinny64x2::PTX),
    ("matmul_f16_skinny64k2", matmul_f16_skinny64k2::PTX),
    ("matmul_f16_skinny64k4", matmul_f16_skinny64k4::PTX),
];
