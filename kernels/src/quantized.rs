//! The quantized GEMMs of `kernels/examples/matmul.rs` and `bench/examples/bench_qmatmul.rs`: fp8 (e4m3) and
//! int8 operands, the weight-and-activation-quantized linear layer of LLM inference.
//!
//! C = diag(a_scale) (A W^T) diag(w_scale), rounded to bf16: A is M x K (activations, one scale
//! per row, i.e. per token), W is N x K (weights as a linear layer stores them, one scale per
//! output channel). Both operands are K-major, which is what 8-bit WGMMAs read, and the scales
//! are applied once, in the epilogue, to the f32 (fp8) or exact i32 (int8) accumulator.
//!
//! `scaled_matmul!` is the persistent, warp-specialized GEMM of `kernels/src/matmul.rs` with 8-bit
//! steps: 128 x 256 tiles of C, 128-wide K steps (one 128-byte swizzle row of each operand), three
//! stages of 48 KiB, a producer warpgroup and two consumers of 64 rows each issuing m64n256k32
//! WGMMAs. The producer also copies each tile's scales (TMA, through a two-stage `Pipeline` of
//! their own), so they wait in shared memory when the main loop ends; the epilogue scales 64
//! columns at a time (a block's column scales and the accumulator fit in the consumers'
//! registers) and stores through shared memory (`stmatrix`) with a TMA store that runs
//! on during the next tile. Skinny shapes, for which 128 x 256 tiles would leave most SMs idle,
//! get 128 x 64 tiles with eight stages (the same kernel text), and shapes whose wide tiles would
//! leave the last wave part-empty 128 x 192 ones (the same again) or 128 x 128 ones
//! (`scaled_matmul_overlapped!`, two at a time in each consumer's accumulator, so that one tile's
//! epilogue runs under the next one's first wgmmas): [`choose`] weighs the waves. Every kernel is
//! `ragged(M, N, K)`: any M, and N and K in TMA's 16-byte rows. For decoding-sized M (64 rows or
//! fewer), `scaled_skinny!` computes C^T = W A^T, streaming 64-row slabs of W through deep rings,
//! as `kernels/src/matmul.rs`'s `skinny!` does; above that, where few tiles would leave SMs idle and K
//! is long, `scaled_split_k!` splits K over several programs per 128 x 128 tile
//! (`kernels/src/workspace.rs`).
//!
//! fp8 WGMMAs accumulate with fewer bits than f32 (what cuBLASLt calls fast accumulation: on the
//! H200 this kernel's C is bit for bit cuBLASLt's with `CUBLASLT_MATMUL_DESC_FAST_ACCUM`); over a
//! long K that costs accuracy (1.7e-2 of the largest element against cuBLASLt's default,
//! promoting, accumulation at K = 16384). int8 sums are exact.

use tessel::prelude::*;

use crate::waves::{self, dim, Rows, Spread};
use crate::workspace::Workspace;

/// C = diag(a_scale) (A W^T) diag(w_scale) in bf16, with 8-bit `$t` operands accumulated in
/// `$acc`, with 128 x BN tiles. Any M, N and K: the last tiles overhang the arrays, where TMA
/// reads zeros (which add nothing to the products) and drops what a store writes outside.
macro_rules! scaled_matmul {
    ($name:ident, $t:ident, $acc:ident, BN = $bn:literal, STAGES = $stages:literal) => {
        #[kernel(grid = (132,), warpgroups = 3, warpgroup_axis = wg, max_registers = 168, ragged(M, N, K),
                                 consts(BM = 128, BN = $bn, BK = 128, STAGES = $stages, GROUP = 8, BLOCKS = $bn / 64))]
        pub fn $name(
            a: Gmem<$t, M, K>,
            w: Gmem<$t, N, K>,
            a_scale: Gmem<f32, M>,
            w_scale: Gmem<f32, N>,
            c: GmemMut<bf16, M, N>,
        ) {
            let (tile_rows, tile_cols, steps) = (cdiv(M, BM), cdiv(N, BN), cdiv(K, BK));
            let (p, programs) = (program_id(0), num_programs(0));
            let tiles = tile_rows * tile_cols;
            run_scoped(
                collective_axes = [wg],
                |a_s: Smem<$t, STAGES, 2, 64, BK, Swizzle128>,
                 w_s: Smem<$t, STAGES, BN, BK, Swizzle128>,
                 c_s: Smem<bf16, 2, BLOCKS, 64, 64, Swizzle128>,
                 ring: Pipeline<STAGES, 3, 2>,
                 // A tile's scales: three copies (A's two halves and W's), two consumers.
                 a_scale_s: Smem<f32, 2, 2, 64>,
                 w_scale_s: Smem<f32, 2, BN>,
                 scales: Pipeline<2, 3, 2>| {
                    if warpgroup_id() == 0 {
                        set_max_registers(40);
                        for t in 0..(tiles - p + programs - 1) / programs {
                            // L2-friendly order: GROUP tile-rows at a time, walking down each column.
                            let u = p + t * programs;
                            let first = u / (GROUP * tile_cols) * GROUP;
                            let rows = min(tile_rows - first, GROUP);
                            let (ti, tj) = (first + u % (GROUP * tile_cols) % rows, u % (GROUP * tile_cols) / rows);
                            pipeline_produce(scales, 1, |_k, s, bar| {
                                copy_gmem_to_smem(a_scale.tile([2 * ti]), a_scale_s.at(s).at(0), bar);
                                copy_gmem_to_smem(a_scale.tile([2 * ti + 1]), a_scale_s.at(s).at(1), bar);
                                copy_gmem_to_smem(w_scale.tile([tj]), w_scale_s.at(s), bar);
                            });
                            pipeline_produce(ring, steps, |k, s, bar| {
                                copy_gmem_to_smem(a.tile([2 * ti, k]), a_s.at(s).at(0), bar);
                                copy_gmem_to_smem(a.tile([2 * ti + 1, k]), a_s.at(s).at(1), bar);
                                copy_gmem_to_smem(w.tile([tj, k]), w_s.at(s), bar);
                            });
                        }
                    } else {
                        set_max_registers(232);
                        let h = warpgroup_id() - 1;
                        run_scoped(|acc: Acc<$acc, 64, BN>| {
                            for t in 0..(tiles - p + programs - 1) / programs {
                                let u = p + t * programs;
                                let first = u / (GROUP * tile_cols) * GROUP;
                                let rows = min(tile_rows - first, GROUP);
                                let (ti, tj) = (first + u % (GROUP * tile_cols) % rows, u % (GROUP * tile_cols) / rows);
                                pipeline_consume(ring, steps, |k, s| {
                                    // W's stage is N x K: `.t()` is the K x N operand, K-major.
                                    wgmma(acc, a_s.at(s).at(h), w_s.at(s).t(), accumulate = k > 0);
                                });
                                // The previous tile's stores must have read c_s before it is rewritten.
                                wait_smem_to_gmem(0);
                                // The epilogue, 64 columns at a time, so that a block's column
                                // scales (16 registers a thread) and the accumulator fit in the
                                // registers.
                                pipeline_consume(scales, 1, |_k, s| {
                                    let row_scale =
                                        a_scale_s.at(s).at(h).load(Layout::WgmmaRow).broadcast([64, 64], Layout::Wgmma);
                                    // Unrolled: a slice's bounds are constants.
                                    #[unroll]
                                    for q in 0..BLOCKS {
                                        let col_scale =
                                            w_scale_s.at(s).slice([64 * q..64 * q + 64]).load(Layout::WgmmaCol);
                                        let y = acc.slice([.., 64 * q..64 * q + 64]).load().cast::<f32>()
                                            * row_scale
                                            * col_scale.broadcast([64, 64], Layout::Wgmma);
                                        c_s.at(h).at(q).store(y.cast::<bf16>());
                                    }
                                });
                                commit_smem();
                                #[unroll]
                                for q in 0..BLOCKS {
                                    copy_smem_to_gmem(c_s.at(h).at(q), c.tile([2 * ti + h, BLOCKS * tj + q]));
                                }
                            }
                        });
                    }
                },
            );
        }
    };
}

/// The same product with 128 x 128 tiles whose epilogue runs under the next tile's first wgmmas:
/// each consumer's 64 x 256 accumulator holds two 64 x 128 tiles that take turns (`half`), and
/// while a tile's first step multiplies into one half, the previous tile's result is scaled and
/// stored from the other. Any M, N and K, as for `scaled_matmul!`.
#[macro_export]
macro_rules! scaled_matmul_overlapped {
    ($name:ident, $t:ident, $acc:ident, STAGES = $stages:literal, PROGRAMS = $programs:literal) => {
        #[kernel(grid = ($programs,), warpgroups = 3, warpgroup_axis = wg, max_registers = 168, ragged(M, N, K),
                                                 consts(BM = 128, BN = 128, BK = 128, STAGES = $stages, GROUP = 8))]
        pub fn $name(
            a: Gmem<$t, M, K>,
            w: Gmem<$t, N, K>,
            a_scale: Gmem<f32, M>,
            w_scale: Gmem<f32, N>,
            c: GmemMut<bf16, M, N>,
        ) {
            let (tile_rows, tile_cols, steps) = (cdiv(M, BM), cdiv(N, BN), cdiv(K, BK));
            let (p, programs) = (program_id(0), num_programs(0));
            let tiles = tile_rows * tile_cols;
            // This program's tiles: p, p + programs, ..
            let mine = (tiles - p + programs - 1) / programs;
            run_scoped(
                collective_axes = [wg],
                |a_s: Smem<$t, STAGES, 2, 64, BK, Swizzle128>,
                 w_s: Smem<$t, STAGES, BN, BK, Swizzle128>,
                 c_s: Smem<bf16, 2, 2, 64, 64, Swizzle128>,
                 ring: Pipeline<STAGES, 3, 2>,
                 a_scale_s: Smem<f32, 2, 2, 64>,
                 w_scale_s: Smem<f32, 2, BN>,
                 scales: Pipeline<2, 3, 2>| {
                    if warpgroup_id() == 0 {
                        set_max_registers(40);
                        for t in 0..mine {
                            let u = p + t * programs;
                            let first = u / (GROUP * tile_cols) * GROUP;
                            let rows = min(tile_rows - first, GROUP);
                            let (ti, tj) = (first + u % (GROUP * tile_cols) % rows, u % (GROUP * tile_cols) / rows);
                            pipeline_produce(scales, 1, |_k, s, bar| {
                                copy_gmem_to_smem(a_scale.tile([2 * ti]), a_scale_s.at(s).at(0), bar);
                                copy_gmem_to_smem(a_scale.tile([2 * ti + 1]), a_scale_s.at(s).at(1), bar);
                                copy_gmem_to_smem(w_scale.tile([tj]), w_scale_s.at(s), bar);
                            });
                            pipeline_produce(ring, steps, |k, s, bar| {
                                copy_gmem_to_smem(a.tile([2 * ti, k]), a_s.at(s).at(0), bar);
                                copy_gmem_to_smem(a.tile([2 * ti + 1, k]), a_s.at(s).at(1), bar);
                                copy_gmem_to_smem(w.tile([tj, k]), w_s.at(s), bar);
                            });
                        }
                    } else {
                        set_max_registers(232);
                        let h = warpgroup_id() - 1;
                        run_scoped(|acc: Acc<$acc, 64, 256>| {
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
                                        // around the loop), would wait for this tile's first
                                        // ones before the epilogue reads it.
                                        wgmma_wait(0);
                                        pipeline_consume(ring, steps, |k, s| {
                                            let out = acc.slice([.., this_half..this_half + BN]);
                                            wgmma(out, a_s.at(s).at(h), w_s.at(s).t(), accumulate = k > 0);
                                            if k == 0 && t > 0 {
                                                // The previous tile's result, while this one's
                                                // first wgmmas run.
                                                wait_smem_to_gmem(0);
                                                pipeline_consume(scales, 1, |_k, s| {
                                                    #[unroll]
                                                    for q in 0..2 {
                                                        let row_scale = a_scale_s.at(s).at(h).load(Layout::WgmmaRow);
                                                        let col_scale = w_scale_s
                                                            .at(s)
                                                            .slice([64 * q..64 * q + 64])
                                                            .load(Layout::WgmmaCol);
                                                        let done = acc.slice([.., other_half..other_half + BN]);
                                                        let y =
                                                            done.slice([.., 64 * q..64 * q + 64]).load().cast::<f32>()
                                                                * row_scale.broadcast([64, 64], Layout::Wgmma)
                                                                * col_scale.broadcast([64, 64], Layout::Wgmma);
                                                        c_s.at(h).at(q).store(y.cast::<bf16>());
                                                    }
                                                });
                                                commit_smem();
                                                #[unroll]
                                                for q in 0..2 {
                                                    copy_smem_to_gmem(
                                                        c_s.at(h).at(q),
                                                        c.tile([2 * pi + h, 2 * pj + q]),
                                                    );
                                                }
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
                                    pipeline_consume(scales, 1, |_k, s| {
                                        #[unroll]
                                        for q in 0..2 {
                                            let row_scale = a_scale_s.at(s).at(h).load(Layout::WgmmaRow);
                                            let col_scale =
                                                w_scale_s.at(s).slice([64 * q..64 * q + 64]).load(Layout::WgmmaCol);
                                            let done = acc.slice([.., BN * half..BN * half + BN]);
                                            let y = done.slice([.., 64 * q..64 * q + 64]).load().cast::<f32>()
                                                * row_scale.broadcast([64, 64], Layout::Wgmma)
                                                * col_scale.broadcast([64, 64], Layout::Wgmma);
                                            c_s.at(h).at(q).store(y.cast::<bf16>());
                                        }
                                    });
                                    commit_smem();
                                    #[unroll]
                                    for q in 0..2 {
                                        copy_smem_to_gmem(c_s.at(h).at(q), c.tile([2 * pi + h, 2 * pj + q]));
                                    }
                                }
                            }
                        });
                    }
                },
            );
        }
    };
}

/// C = diag(a_scale) (A W^T) diag(w_scale) for few tiles: K split over `ways` programs per
/// 128 x 128 tile of C, each through six stages of 32 KiB, their partial products (f32 or exact
/// i32) summed as `split_k_text!` (`kernels/src/workspace.rs`) says, each program adding up the 64 x
/// 32 slices of the tile it owns in buffers that take the stages' shared memory after the main
/// loop, then scaling and storing them (the tile's scales copied while it waits for the others'
/// sums). Any M, N and K, as for `scaled_matmul!`.
macro_rules! scaled_split_k {
    ($name:ident, $t:ident, $acc:ident) => {
        split_k_text!(scaled_split_k!(@kernel $name, $t, $acc), epilogue = (
            let y = sum.cast::<f32>()
                * a_scale_s.at(h).load(Layout::WgmmaRow).broadcast([64, 32], Layout::Wgmma)
                * w_scale_s.slice([32 * q..32 * q + 32]).load(Layout::WgmmaCol).broadcast([64, 32], Layout::Wgmma);
            c.tile([2 * ti + h, 4 * tj + q], [64, 32]).store(y.cast::<bf16>());
        ));
    };
    (@kernel $name:ident, $t:ident, $acc:ident, shares = ($($shares:tt)*), exchange = ($($exchange:tt)*)) => {
        #[kernel(grid = (ways * cdiv(M, BM) * cdiv(N, BN),), warpgroups = 3,
                 warpgroup_axis = wg, max_registers = 168, ragged(M, N, K),
                 consts(BM = 128, BN = 128, BK = 128, STAGES = 6, SLOTS = 8, LOADS = 2 * SLOTS))]
        pub fn $name(
            a: Gmem<$t, M, K>,
            w: Gmem<$t, N, K>,
            a_scale: Gmem<f32, M>,
            w_scale: Gmem<f32, N>,
            c: GmemMut<bf16, M, N>,
            partial: GmemMut<$acc, P, BN>,
            sems: GmemMut<u32, S>,
            ways: i32,
        ) {
            $($shares)*
            // Each consumer's sum lives through both scopes below (the producer's goes unused).
            run_scoped(|acc: Acc<$acc, 64, BN>| {
                run_scoped(
                    collective_axes = [wg],
                    |a_s: Smem<$t, STAGES, 2, 64, BK, Swizzle128>,
                     w_s: Smem<$t, STAGES, BN, BK, Swizzle128>,
                     ring: Pipeline<STAGES, 3, 2>| {
                        if warpgroup_id() == 0 {
                            pipeline_produce(ring, steps, |k, s, bar| {
                                copy_gmem_to_smem(a.tile([2 * ti, first + k]), a_s.at(s).at(0), bar);
                                copy_gmem_to_smem(a.tile([2 * ti + 1, first + k]), a_s.at(s).at(1), bar);
                                copy_gmem_to_smem(w.tile([tj, first + k]), w_s.at(s), bar);
                            });
                        } else {
                            let h = warpgroup_id() - 1;
                            pipeline_consume(ring, steps, |k, s| {
                                // W's stage is N x K: `.t()` is the K x N operand, K-major.
                                wgmma(acc, a_s.at(s).at(h), w_s.at(s).t());
                            });
                        }
                    },
                );
                // The stages' shared memory, free now, holds the exchange's buffers.
                run_scoped(
                    collective_axes = [wg],
                    |part: Smem<$acc, 2, SLOTS, 64, 32, Swizzle128>,
                     loaded: Barrier<1, LOADS>,
                     // The tile's scales: A's two halves and W's (three copies).
                     a_scale_s: Smem<f32, 2, 64>,
                     w_scale_s: Smem<f32, BN>,
                     scales: Barrier<3>| {
                        if warpgroup_id() == 0 {
                            copy_gmem_to_smem(a_scale.tile([2 * ti]), a_scale_s.at(0), scales);
                            copy_gmem_to_smem(a_scale.tile([2 * ti + 1]), a_scale_s.at(1), scales);
                            copy_gmem_to_smem(w_scale.tile([tj]), w_scale_s, scales);
                        } else {
                            let h = warpgroup_id() - 1;
                            barrier_wait(scales);
                            $($exchange)*
                        }
                    },
                );
            });
        }
    };
}

/// C = diag(a_scale) (A W^T) diag(w_scale) for decoding-sized M (at most RN rows of A per program),
/// computed as C^T = W A^T, the skinny GEMM of `kernels/src/matmul.rs` with 8-bit, 128-wide K steps:
/// 64 rows of W fill the wgmma's 64 rows and the RN rows of A its N, so the stages hold W, not
/// the zero rows a 64-row tile of A would add. WN consumer warpgroups take 64 rows of W each;
/// with SPLIT > 1 the programs of a cluster take shares of K and pass their partial sums down
/// the cluster to program 0, which scales the sum and stores it. Any M, N and K, as for
/// `scaled_matmul!`.
macro_rules! scaled_skinny {
    ($name:ident, $t:ident, $acc:ident, RN = $rn:literal, WARPGROUPS = $wgs:literal, STAGES = $stages:literal,
     SPLIT = $split:tt) => {
        skinny_split!(scaled_skinny!(@kernel $name, $t, $acc, $rn, $wgs, $stages, $split), $acc, SPLIT = $split);
    };
    (@kernel $name:ident, $t:ident, $acc:ident, $rn:literal, $wgs:literal, $stages:literal, $split:literal,
     cluster = $cluster:tt, part = ($($part:tt)*), exchange = ($($exchange:tt)*),
     shares = ($($shares:tt)*)) => {
        #[kernel(grid = (SPLIT * cdiv(M, RN) * cdiv(N, 64 * WN),), cluster = $cluster, warpgroups = $wgs,
                 warpgroup_axis = wg, max_registers = 168, ragged(M, N, K),
                 consts(RN = $rn, WN = $wgs - 1, COPIES = $wgs, BK = 128, STAGES = $stages, SPLIT = $split))]
        pub fn $name(
            a: Gmem<$t, M, K>,
            w: Gmem<$t, N, K>,
            a_scale: Gmem<f32, M>,
            w_scale: Gmem<f32, N>,
            c: GmemMut<bf16, M, N>,
        ) {
            $($shares)*
            run_scoped(
                collective_axes = [wg],
                |a_s: Smem<$t, STAGES, RN, BK, Swizzle128>,
                 w_s: Smem<$t, STAGES, WN, 64, BK, Swizzle128>,
                 ring: Pipeline<STAGES, COPIES, WN>,
                 $($part)*
                 // The tile's scales: A's RN and W's 64 per consumer, copied first (COPIES arrivals).
                 a_scale_s: Smem<f32, RN>,
                 w_scale_s: Smem<f32, WN, 64>,
                 scales: Barrier<COPIES>,
                 c_s: Smem<bf16, WN, 64, RN>| {
                    if warpgroup_id() == 0 {
                        // Only program 0 stores (and waits for its scales to land).
                        if rank == 0 {
                            copy_gmem_to_smem(a_scale.tile([ti]), a_scale_s, scales);
                            #[unroll]
                            for v in 0..WN {
                                copy_gmem_to_smem(w_scale.tile([WN * tj + v]), w_scale_s.at(v), scales);
                            }
                        }
                        pipeline_produce(ring, steps, |k, s, bar| {
                            copy_gmem_to_smem(a.tile([ti, first + k]), a_s.at(s), bar);
                            #[unroll]
                            for v in 0..WN {
                                copy_gmem_to_smem(w.tile([WN * tj + v, first + k]), w_s.at(s).at(v), bar);
                            }
                        });
                    } else {
                        let h = warpgroup_id() - 1;
                        run_scoped(|acc: Acc<$acc, 64, RN>| {
                            pipeline_consume(ring, steps, |k, s| {
                                // A's stage is RN x K: `.t()` is the K x RN operand, K-major.
                                wgmma(acc, w_s.at(s).at(h), a_s.at(s).t());
                            });
                            $($exchange)*
                            if rank == 0 {
                                // The 64 x RN block of C^T, scaled (W's scales along its rows,
                                // A's along its columns), through shared memory into C's RN x 64 tile.
                                barrier_wait(scales);
                                let y = acc.load().cast::<f32>()
                                    * w_scale_s.at(h).load(Layout::WgmmaRow).broadcast([64, RN], Layout::Wgmma)
                                    * a_scale_s.load(Layout::WgmmaCol).broadcast([64, RN], Layout::Wgmma);
                                c_s.at(h).store(y.cast::<bf16>());
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

scaled_matmul!(scaled_matmul_fp8, f8e4m3, f32, BN = 256, STAGES = 3);
scaled_matmul!(scaled_matmul_i8, i8, i32, BN = 256, STAGES = 3);
scaled_matmul!(scaled_matmul_fp8_n192, f8e4m3, f32, BN = 192, STAGES = 4);
scaled_matmul!(scaled_matmul_i8_n192, i8, i32, BN = 192, STAGES = 4);
scaled_matmul!(scaled_matmul_fp8_narrow, f8e4m3, f32, BN = 64, STAGES = 8);
scaled_matmul!(scaled_matmul_i8_narrow, i8, i32, BN = 64, STAGES = 8);
scaled_matmul_overlapped!(scaled_matmul_fp8_overlapped, f8e4m3, f32, STAGES = 5, PROGRAMS = 132);
scaled_matmul_overlapped!(scaled_matmul_i8_overlapped, i8, i32, STAGES = 5, PROGRAMS = 132);
scaled_split_k!(scaled_matmul_fp8_split, f8e4m3, f32);
scaled_split_k!(scaled_matmul_i8_split, i8, i32);
scaled_skinny!(scaled_matmul_fp8_skinny16, f8e4m3, f32, RN = 16, WARPGROUPS = 2, STAGES = 18, SPLIT = 1);
scaled_skinny!(scaled_matmul_fp8_skinny16x2, f8e4m3, f32, RN = 16, WARPGROUPS = 3, STAGES = 10, SPLIT = 1);
scaled_skinny!(scaled_matmul_fp8_skinny16k2, f8e4m3, f32, RN = 16, WARPGROUPS = 2, STAGES = 17, SPLIT = 2);
scaled_skinny!(scaled_matmul_fp8_skinny16k4, f8e4m3, f32, RN = 16, WARPGROUPS = 2, STAGES = 17, SPLIT = 4);
scaled_skinny!(scaled_matmul_fp8_skinny32, f8e4m3, f32, RN = 32, WARPGROUPS = 2, STAGES = 15, SPLIT = 1);
scaled_skinny!(scaled_matmul_fp8_skinny32x2, f8e4m3, f32, RN = 32, WARPGROUPS = 3, STAGES = 9, SPLIT = 1);
scaled_skinny!(scaled_matmul_fp8_skinny32k2, f8e4m3, f32, RN = 32, WARPGROUPS = 2, STAGES = 14, SPLIT = 2);
scaled_skinny!(scaled_matmul_fp8_skinny32k4, f8e4m3, f32, RN = 32, WARPGROUPS = 2, STAGES = 14, SPLIT = 4);
scaled_skinny!(scaled_matmul_fp8_skinny64, f8e4m3, f32, RN = 64, WARPGROUPS = 2, STAGES = 11, SPLIT = 1);
scaled_skinny!(scaled_matmul_fp8_skinny64x2, f8e4m3, f32, RN = 64, WARPGROUPS = 3, STAGES = 8, SPLIT = 1);
scaled_skinny!(scaled_matmul_fp8_skinny64k2, f8e4m3, f32, RN = 64, WARPGROUPS = 2, STAGES = 10, SPLIT = 2);
scaled_skinny!(scaled_matmul_fp8_skinny64k4, f8e4m3, f32, RN = 64, WARPGROUPS = 2, STAGES = 10, SPLIT = 4);
scaled_skinny!(scaled_matmul_i8_skinny16, i8, i32, RN = 16, WARPGROUPS = 2, STAGES = 18, SPLIT = 1);
scaled_skinny!(scaled_matmul_i8_skinny16x2, i8, i32, RN = 16, WARPGROUPS = 3, STAGES = 10, SPLIT = 1);
scaled_skinny!(scaled_matmul_i8_skinny16k2, i8, i32, RN = 16, WARPGROUPS = 2, STAGES = 17, SPLIT = 2);
scaled_skinny!(scaled_matmul_i8_skinny16k4, i8, i32, RN = 16, WARPGROUPS = 2, STAGES = 17, SPLIT = 4);
scaled_skinny!(scaled_matmul_i8_skinny32, i8, i32, RN = 32, WARPGROUPS = 2, STAGES = 15, SPLIT = 1);
scaled_skinny!(scaled_matmul_i8_skinny32x2, i8, i32, RN = 32, WARPGROUPS = 3, STAGES = 9, SPLIT = 1);
scaled_skinny!(scaled_matmul_i8_skinny32k2, i8, i32, RN = 32, WARPGROUPS = 2, STAGES = 14, SPLIT = 2);
scaled_skinny!(scaled_matmul_i8_skinny32k4, i8, i32, RN = 32, WARPGROUPS = 2, STAGES = 14, SPLIT = 4);
scaled_skinny!(scaled_matmul_i8_skinny64, i8, i32, RN = 64, WARPGROUPS = 2, STAGES = 11, SPLIT = 1);
scaled_skinny!(scaled_matmul_i8_skinny64x2, i8, i32, RN = 64, WARPGROUPS = 3, STAGES = 8, SPLIT = 1);
scaled_skinny!(scaled_matmul_i8_skinny64k2, i8, i32, RN = 64, WARPGROUPS = 2, STAGES = 10, SPLIT = 2);
scaled_skinny!(scaled_matmul_i8_skinny64k4, i8, i32, RN = 64, WARPGROUPS = 2, STAGES = 10, SPLIT = 4);

/// Picks the kernel for a shape (see [`Variant`]): one function launches it on the GPU, one runs it
/// in the interpreter, and one launches a variant named by the caller (for tuning).
macro_rules! dispatch {
    ($launch:ident, $launch_variant:ident, $interpret:ident, $interpret_variant:ident, $t:ident,
     $acc:ident, split = $split:ident, $($variant:pat => $kernel:ident),*) => {
        /// C = diag(a_scale) (A W^T) diag(w_scale) on the GPU with the kernel for this shape.
        pub fn $launch(
            stream: &impl tessel::AsStream,
            a: &DeviceTensor<$t>,
            w: &DeviceTensor<$t>,
            a_scale: &DeviceTensor<f32>,
            w_scale: &DeviceTensor<f32>,
            c: &mut DeviceTensor<bf16>,
        ) -> tessel::Result<()> {
            let v = variant(a.shape().first(), w.shape().first(), a.shape().get(1));
            $launch_variant(v, stream, a, w, a_scale, w_scale, c)
        }

        /// The same with variant `v`.
        pub fn $launch_variant(
            v: Variant,
            stream: &impl tessel::AsStream,
            a: &DeviceTensor<$t>,
            w: &DeviceTensor<$t>,
            a_scale: &DeviceTensor<f32>,
            w_scale: &DeviceTensor<f32>,
            c: &mut DeviceTensor<bf16>,
        ) -> tessel::Result<()> {
            match v {
                Variant::Split(ways) => {
                    let (m, n) = (dim(a.shape(), 0), dim(w.shape(), 0));
                    Workspace::<$acc>::on_device(stream, m, n, ways, |partial, sems, ways| {
                        $split::launch(stream, a, w, a_scale, w_scale, c, partial, sems, ways)
                    })
                }
                $($variant => $kernel::launch(stream, a, w, a_scale, w_scale, c),)*
            }
        }

        /// The same in the interpreter, with the kernel the GPU would run.
        pub fn $interpret(
            a: &HostTensor<$t>,
            w: &HostTensor<$t>,
            a_scale: &HostTensor<f32>,
            w_scale: &HostTensor<f32>,
            c: &mut HostTensor<bf16>,
        ) -> tessel::Result<()> {
            let v = variant(a.shape().first(), w.shape().first(), a.shape().get(1));
            $interpret_variant(v, a, w, a_scale, w_scale, c)
        }

        /// The same in the interpreter with variant `v`.
        pub fn $interpret_variant(
            v: Variant,
            a: &HostTensor<$t>,
            w: &HostTensor<$t>,
            a_scale: &HostTensor<f32>,
            w_scale: &HostTensor<f32>,
            c: &mut HostTensor<bf16>,
        ) -> tessel::Result<()> {
            match v {
                Variant::Split(ways) => {
                    let (m, n) = (dim(a.shape(), 0), dim(w.shape(), 0));
                    Workspace::<$acc>::on_host(m, n, ways, |partial, sems, ways| {
                        $split::interpret(a, w, a_scale, w_scale, c, partial, sems, ways)
                    })
                }
                $($variant => $kernel::interpret(a, w, a_scale, w_scale, c),)*
            }
        }
    };
}

dispatch!(fp8_matmul, fp8_matmul_variant, interpret_fp8_matmul, interpret_fp8_matmul_variant, F8E4M3, f32,
          split = scaled_matmul_fp8_split,
          Variant::Wide => scaled_matmul_fp8,
          Variant::Mid => scaled_matmul_fp8_n192,
          Variant::Overlapped => scaled_matmul_fp8_overlapped,
          Variant::Narrow => scaled_matmul_fp8_narrow,
          Variant::Skinny(Rows::R16, Spread::One) => scaled_matmul_fp8_skinny16,
          Variant::Skinny(Rows::R16, Spread::Two) => scaled_matmul_fp8_skinny16x2,
          Variant::Skinny(Rows::R16, Spread::SplitK2) => scaled_matmul_fp8_skinny16k2,
          Variant::Skinny(Rows::R16, Spread::SplitK4) => scaled_matmul_fp8_skinny16k4,
          Variant::Skinny(Rows::R32, Spread::One) => scaled_matmul_fp8_skinny32,
          Variant::Skinny(Rows::R32, Spread::Two) => scaled_matmul_fp8_skinny32x2,
          Variant::Skinny(Rows::R32, Spread::SplitK2) => scaled_matmul_fp8_skinny32k2,
          Variant::Skinny(Rows::R32, Spread::SplitK4) => scaled_matmul_fp8_skinny32k4,
          Variant::Skinny(Rows::R64, Spread::One) => scaled_matmul_fp8_skinny64,
          Variant::Skinny(Rows::R64, Spread::Two) => scaled_matmul_fp8_skinny64x2,
          Variant::Skinny(Rows::R64, Spread::SplitK2) => scaled_matmul_fp8_skinny64k2,
          Variant::Skinny(Rows::R64, Spread::SplitK4) => scaled_matmul_fp8_skinny64k4);
dispatch!(i8_matmul, i8_matmul_variant, interpret_i8_matmul, interpret_i8_matmul_variant, i8, i32,
          split = scaled_matmul_i8_split,
          Variant::Wide => scaled_matmul_i8,
          Variant::Mid => scaled_matmul_i8_n192,
          Variant::Overlapped => scaled_matmul_i8_overlapped,
          Variant::Narrow => scaled_matmul_i8_narrow,
          Variant::Skinny(Rows::R16, Spread::One) => scaled_matmul_i8_skinny16,
          Variant::Skinny(Rows::R16, Spread::Two) => scaled_matmul_i8_skinny16x2,
          Variant::Skinny(Rows::R16, Spread::SplitK2) => scaled_matmul_i8_skinny16k2,
          Variant::Skinny(Rows::R16, Spread::SplitK4) => scaled_matmul_i8_skinny16k4,
          Variant::Skinny(Rows::R32, Spread::One) => scaled_matmul_i8_skinny32,
          Variant::Skinny(Rows::R32, Spread::Two) => scaled_matmul_i8_skinny32x2,
          Variant::Skinny(Rows::R32, Spread::SplitK2) => scaled_matmul_i8_skinny32k2,
          Variant::Skinny(Rows::R32, Spread::SplitK4) => scaled_matmul_i8_skinny32k4,
          Variant::Skinny(Rows::R64, Spread::One) => scaled_matmul_i8_skinny64,
          Variant::Skinny(Rows::R64, Spread::Two) => scaled_matmul_i8_skinny64x2,
          Variant::Skinny(Rows::R64, Spread::SplitK2) => scaled_matmul_i8_skinny64k2,
          Variant::Skinny(Rows::R64, Spread::SplitK4) => scaled_matmul_i8_skinny64k4);

/// The kernels `dispatch!` chooses from: one per tile size, the split-K one and the skinny ones.
pub use waves::Kernel as Variant;

/// The variant for a shape: `TESSEL_QMATMUL=wide|mid|overlapped|narrow`, a split of K (`split`,
/// `split3` .. `split32`) or a skinny kernel's name (`skinny16`, `skinny64x2`, `skinny32k4`)
/// overrides [`choose`] (for tuning).
pub fn variant(m: Option<&usize>, n: Option<&usize>, k: Option<&usize>) -> Variant {
    let chosen = std::env::var("TESSEL_QMATMUL").ok().and_then(|name| Variant::named(&name));
    chosen.unwrap_or_else(|| choose(m, n, k))
}

/// A skinny kernel for M <= 64 ([`waves::skinny`]: 1.06-2.3x faster than 128 x 64 tiles at
/// M = 1 to 64 on the H200, `bench/results/skinny/`); K split over 2-8 programs per 128 x 128
/// tile where few tiles would leave SMs idle and a row of K holds 8 KiB or more
/// ([`waves::split_ways`]: 1.1-1.35x faster than 128 x 64 tiles at 16 tiles or fewer or K =
/// 14336, commit c665a77); otherwise the tiles whose waves finish first
/// ([`waves::fastest`]): wide ones, 128 x 192 ones, 128 x 128 ones with overlapped epilogues, or
/// 128 x 64 ones. (Measured on the H200, fp8 and int8: narrow tiles 1.3-1.9x faster than wide
/// ones at M = 128 and 256, N = K = 8192, and at M = 128 1.08-1.15x faster than K split two
/// ways.)
///
/// Dimensions the shapes lack (a tensor of the wrong rank) choose `Wide`, whose launch reports
/// them.
pub fn choose(m: Option<&usize>, n: Option<&usize>, k: Option<&usize>) -> Variant {
    let (Some(&m), Some(&n), Some(&k)) = (m, n, k) else { return Variant::Wide };
    Variant::choose(m, n, k, 1)
}

/// Every instantiation's name and PTX (for `ptxas` checks and `TESSEL_DUMP_PTX`).
pub const ALL_PTX: &[(&str, &str)] = &[
    ("scaled_matmul_fp8", scaled_matmul_fp8::PTX),
    ("scaled_matmul_i8", scaled_matmul_i8::PTX),
    ("scaled_matmul_fp8_n192", scaled_matmul_fp8_n192::PTX),
    ("scaled_matmul_i8_n192", scaled_matmul_i8_n192::PTX),
    ("scaled_matmul_fp8_narrow", scaled_matmul_fp8_narrow::PTX),
    ("scaled_matmul_i8_narrow", scaled_matmul_i8_narrow::PTX),
    ("scaled_matmul_fp8_split", scaled_matmul_fp8_split::PTX),
    ("scaled_matmul_i8_split", scaled_matmul_i8_split::PTX),
    ("scaled_matmul_fp8_overlapped", scaled_matmul_fp8_overlapped::PTX),
    ("scaled_matmul_i8_overlapped", scaled_matmul_i8_overlapped::PTX),
    ("scaled_matmul_fp8_skinny16", scaled_matmul_fp8_skinny16::PTX),
    ("scaled_matmul_fp8_skinny16x2", scaled_matmul_fp8_skinny16x2::PTX),
    ("scaled_matmul_fp8_skinny16k2", scaled_matmul_fp8_skinny16k2::PTX),
    ("scaled_matmul_fp8_skinny16k4", scaled_matmul_fp8_skinny16k4::PTX),
    ("scaled_matmul_fp8_skinny32", scaled_matmul_fp8_skinny32::PTX),
    ("scaled_matmul_fp8_skinny32x2", scaled_matmul_fp8_skinny32x2::PTX),
    ("scaled_matmul_fp8_skinny32k2", scaled_matmul_fp8_skinny32k2::PTX),
    ("scaled_matmul_fp8_skinny32k4", scaled_matmul_fp8_skinny32k4::PTX),
    ("scaled_matmul_fp8_skinny64", scaled_matmul_fp8_skinny64::PTX),
    ("scaled_matmul_fp8_skinny64x2", scaled_matmul_fp8_skinny64x2::PTX),
    ("scaled_matmul_fp8_skinny64k2", scaled_matmul_fp8_skinny64k2::PTX),
    ("scaled_matmul_fp8_skinny64k4", scaled_matmul_fp8_skinny64k4::PTX),
    ("scaled_matmul_i8_skinny16", scaled_matmul_i8_skinny16::PTX),
    ("scaled_matmul_i8_skinny16x2", scaled_matmul_i8_skinny16x2::PTX),
    ("scaled_matmul_i8_skinny16k2", scaled_matmul_i8_skinny16k2::PTX),
    ("scaled_matmul_i8_skinny16k4", scaled_matmul_i8_skinny16k4::PTX),
    ("scaled_matmul_i8_skinny32", scaled_matmul_i8_skinny32::PTX),
    ("scaled_matmul_i8_skinny32x2", scaled_matmul_i8_skinny32x2::PTX),
    ("scaled_matmul_i8_skinny32k2", scaled_matmul_i8_skinny32k2::PTX),
    ("scaled_matmul_i8_skinny32k4", scaled_matmul_i8_skinny32k4::PTX),
    ("scaled_matmul_i8_skinny64", scaled_matmul_i8_skinny64::PTX),
    ("scaled_matmul_i8_skinny64x2", scaled_matmul_i8_skinny64x2::PTX),
    ("scaled_matmul_i8_skinny64k2", scaled_matmul_i8_skinny64k2::PTX),
    ("scaled_matmul_i8_skinny64k4", scaled_matmul_i8_skinny64k4::PTX),
];
