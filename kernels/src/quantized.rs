//! The quantized GEMMs of `kernels/examples/matmul.rs` and `bench/examples/bench_qmatmul.rs`: fp8 (e4m3) and
//! int8 operands, the weight-and-activation-quantized linear layer of LLM inference.
//!
//! C = diag(a_scale) (A W^T) diag(w_scale), rounded to bf16: A is M x K (activations, one scale
//! per row, i.e. per token), W is N x K (weights as a linear layer stores them, one scale per
//! output channel). Both operands are K-major, which is what 8-bit WGMMAs read, and the scales
//! are applied once, in the epilogue, to the f32 (fp8) or exact i32 (int8) accumulator.
//!
//! [`scaled_matmul`] is the persistent, warp-specialized GEMM of `kernels/src/matmul.rs` with 8-bit
//! steps: 128 x 256 tiles of C, 128-wide K steps (one 128-byte swizzle row of each operand), three
//! stages of 48 KiB, a producer warpgroup and two consumers of 64 rows each issuing m64n256k32
//! WGMMAs. The producer also copies each tile's scales (TMA, through a two-stage `Pipeline` of
//! their own), so they wait in shared memory when the main loop ends; the epilogue scales 64
//! columns at a time (a block's column scales and the accumulator fit in the consumers'
//! registers) and stores through shared memory (`stmatrix`) with a TMA store that runs
//! on during the next tile. Skinny shapes, for which 128 x 256 tiles would leave most SMs idle,
//! get 128 x 64 tiles with eight stages (the same kernel), and shapes whose wide tiles would
//! leave the last wave part-empty 128 x 192 ones (the same again) or 128 x 128 ones
//! ([`scaled_matmul_overlapped`], two at a time in each consumer's accumulator, so that one tile's
//! epilogue runs under the next one's first wgmmas): [`choose`] weighs the waves. Every kernel is
//! `ragged(M, N, K)`: any M, and N and K in TMA's 16-byte rows. For decoding-sized M (64 rows or
//! fewer), [`scaled_matmul_skinny`] computes C^T = W A^T, streaming 64-row slabs of W through deep
//! rings, as `kernels/src/matmul.rs`'s `matmul_skinny` does; above that, where few tiles would
//! leave SMs idle and K is long, [`scaled_matmul_split`] splits K over several programs per
//! 128 x 128 tile ([`Workspace`]).
//!
//! The four are generic kernels of one `#[kernels]` module ([`scaled`]), sharing its kernel
//! function (the overlapped kernel's epilogue) and those of the libraries the GEMM families share
//! ([`gemm_fns`](crate::gemm_fns): the tile order, the split-K exchange, the skinny kernel's sums
//! down the cluster); each instance is listed
//! once, in its kernel's `instances(..)`, which [`ALL_PTX`] lists as
//! `scaled_matmul::<f8e4m3, f32, 256, 3>` (operand and accumulator dtypes, BN, STAGES),
//! `scaled_matmul_overlapped::<f8e4m3, f32, 132>` (dtypes, PROGRAMS),
//! `scaled_matmul_split::<f8e4m3, f32>` and `scaled_matmul_skinny::<f8e4m3, f32, 16, 2, 18, 1>`
//! (dtypes, RN, WGS, STAGES, SPLIT).
//! The producers' steps are written out rather than kernel functions: a function's arguments are
//! evaluated once, at the call (a stage's view `a_s.at(s)` into one register), which changed
//! ptxas's scheduling of these kernels; written out, their PTX is what it was before they were
//! generic.
//!
//! fp8 WGMMAs accumulate with fewer bits than f32 (what cuBLASLt calls fast accumulation: on the
//! H200 this kernel's C is bit for bit cuBLASLt's with `CUBLASLT_MATMUL_DESC_FAST_ACCUM`); over a
//! long K that costs accuracy (1.7e-2 of the largest element against cuBLASLt's default,
//! promoting, accumulation at K = 16384). int8 sums are exact.

use tessel::prelude::*;

use crate::waves::{self, dim, Rows, Spread};
use crate::workspace::Workspace;

/// The fp8 and int8 GEMM family: four generic kernels and the kernel functions they share. Every
/// instance is listed once, in its kernel's `instances(..)`, which `ALL_PTX` (the `#[kernels]`
/// module's list of every instance's PTX) follows; the dispatchers below map each `Variant` to
/// its instance. `T` is the operands' dtype and `A` the accumulator's: (f8e4m3, f32) or (i8, i32).
#[kernels(uses(crate::gemm_fns::tiles, crate::gemm_fns::split_k))]
pub mod scaled {
    use tessel::prelude::*;

    /// A consumer's 64 x 128 result `done` of the overlapped kernel, scaled (A's scales along its
    /// rows, W's along its columns) into its two 64 x 64 output buffers, a block at a time.
    fn scale_out<A>(
        done: Acc<A, 64, 128>,
        a_scale_s: Smem<f32, 64>,
        w_scale_s: Smem<f32, 128>,
        c_s: Smem<bf16, 2, 64, 64, Swizzle128>,
    ) {
        #[unroll]
        for q in 0..2 {
            let row_scale = a_scale_s.load(Layout::WgmmaRow);
            let col_scale = w_scale_s.slice([64 * q..64 * q + 64]).load(Layout::WgmmaCol);
            let y = done.slice([.., 64 * q..64 * q + 64]).load().cast::<f32>()
                * row_scale.broadcast([64, 64], Layout::Wgmma)
                * col_scale.broadcast([64, 64], Layout::Wgmma);
            c_s.at(q).store(y.cast::<bf16>());
        }
    }

    /// C = diag(a_scale) (A W^T) diag(w_scale) in bf16, 8-bit `T` operands accumulated in `A`,
    /// 128 x BN tiles, STAGES stages. Any M, N and K: the last tiles overhang the arrays, where TMA
    /// reads zeros (which add nothing to the products) and drops what a store writes outside.
    #[kernel(grid = (132,), warpgroups = 3, warpgroup_axis = wg, max_registers = 168, ragged(M, N, K),
             consts(BM = 128, BK = 128, GROUP = 8, BLOCKS = BN / 64),
             instances((f8e4m3, f32, 256, 3), (i8, i32, 256, 3), (f8e4m3, f32, 192, 4), (i8, i32, 192, 4),
                       (f8e4m3, f32, 64, 8), (i8, i32, 64, 8)))]
    pub fn scaled_matmul<T, A, const BN: usize, const STAGES: usize>(
        a: Gmem<T, M, K>,
        w: Gmem<T, N, K>,
        a_scale: Gmem<f32, M>,
        w_scale: Gmem<f32, N>,
        c: GmemMut<bf16, M, N>,
    ) {
        let (tile_rows, tile_cols, steps) = (cdiv(M, BM), cdiv(N, BN), cdiv(K, BK));
        let (p, programs) = (program_id(0), num_programs(0));
        let tiles = tile_rows * tile_cols;
        run_scoped(
            collective_axes = [wg],
            |a_s: Smem<T, STAGES, 2, 64, BK, Swizzle128>,
             w_s: Smem<T, STAGES, BN, BK, Swizzle128>,
             c_s: Smem<bf16, 2, BLOCKS, 64, 64, Swizzle128>,
             ring: Pipeline<STAGES, 3, 2>,
             // A tile's scales: three copies (A's two halves and W's), two consumers.
             a_scale_s: Smem<f32, 2, 2, 64>,
             w_scale_s: Smem<f32, 2, BN>,
             scales: Pipeline<2, 3, 2>| {
                if warpgroup_id() == 0 {
                    set_max_registers(40);
                    for t in 0..(tiles - p + programs - 1) / programs {
                        let (ti, tj) = tile_order::<GROUP>(p + t * programs, tile_rows, tile_cols);
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
                    run_scoped(|acc: Acc<A, 64, BN>| {
                        for t in 0..(tiles - p + programs - 1) / programs {
                            let (ti, tj) = tile_order::<GROUP>(p + t * programs, tile_rows, tile_cols);
                            pipeline_consume(ring, steps, |k, s| {
                                // W's stage is N x K: `.t()` is the K x N operand, K-major.
                                wgmma(acc, a_s.at(s).at(h), w_s.at(s).t(), accumulate = k > 0);
                            });
                            // The previous tile's stores must have read c_s before it is rewritten.
                            wait_smem_to_gmem(0);
                            // The epilogue, 64 columns at a time, so that a block's column scales
                            // (16 registers a thread) and the accumulator fit in the registers.
                            pipeline_consume(scales, 1, |_k, s| {
                                let row_scale =
                                    a_scale_s.at(s).at(h).load(Layout::WgmmaRow).broadcast([64, 64], Layout::Wgmma);
                                // Unrolled: a slice's bounds are constants.
                                #[unroll]
                                for q in 0..BLOCKS {
                                    let col_scale = w_scale_s.at(s).slice([64 * q..64 * q + 64]).load(Layout::WgmmaCol);
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

    /// The same product with 128 x 128 tiles whose epilogue runs under the next tile's first
    /// wgmmas: each consumer's 64 x 256 accumulator holds two 64 x 128 tiles that take turns
    /// (`half`), and while a tile's first step multiplies into one half, the previous tile's
    /// result is scaled and stored from the other. Any M, N and K, as for `scaled_matmul`.
    #[kernel(grid = (PROGRAMS,), warpgroups = 3, warpgroup_axis = wg, max_registers = 168, ragged(M, N, K),
             consts(BM = 128, BN = 128, BK = 128, STAGES = 5, GROUP = 8),
             // 3 and 2 programs: for the tests.
             instances((f8e4m3, f32, 132), (i8, i32, 132), (f8e4m3, f32, 3), (i8, i32, 2)))]
    pub fn scaled_matmul_overlapped<T, A, const PROGRAMS: usize>(
        a: Gmem<T, M, K>,
        w: Gmem<T, N, K>,
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
            |a_s: Smem<T, STAGES, 2, 64, BK, Swizzle128>,
             w_s: Smem<T, STAGES, BN, BK, Swizzle128>,
             c_s: Smem<bf16, 2, 2, 64, 64, Swizzle128>,
             ring: Pipeline<STAGES, 3, 2>,
             a_scale_s: Smem<f32, 2, 2, 64>,
             w_scale_s: Smem<f32, 2, BN>,
             scales: Pipeline<2, 3, 2>| {
                if warpgroup_id() == 0 {
                    set_max_registers(40);
                    for t in 0..mine {
                        let (ti, tj) = tile_order::<GROUP>(p + t * programs, tile_rows, tile_cols);
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
                    run_scoped(|acc: Acc<A, 64, 256>| {
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
                                    // Nothing is in flight here; but ptxas, not seeing that the
                                    // other half's wgmmas were waited for (on the way around the
                                    // loop), would wait for this tile's first ones before the
                                    // epilogue reads it.
                                    wgmma_wait(0);
                                    pipeline_consume(ring, steps, |k, s| {
                                        let out = acc.slice([.., this_half..this_half + BN]);
                                        wgmma(out, a_s.at(s).at(h), w_s.at(s).t(), accumulate = k > 0);
                                        if k == 0 && t > 0 {
                                            // The previous tile's result, while this one's first
                                            // wgmmas run.
                                            wait_smem_to_gmem(0);
                                            pipeline_consume(scales, 1, |_k, s| {
                                                let done = acc.slice([.., other_half..other_half + BN]);
                                                scale_out::<A>(done, a_scale_s.at(s).at(h), w_scale_s.at(s), c_s.at(h));
                                            });
                                            commit_smem();
                                            #[unroll]
                                            for q in 0..2 {
                                                copy_smem_to_gmem(c_s.at(h).at(q), c.tile([2 * pi + h, 2 * pj + q]));
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
                                    let done = acc.slice([.., BN * half..BN * half + BN]);
                                    scale_out::<A>(done, a_scale_s.at(s).at(h), w_scale_s.at(s), c_s.at(h));
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

    /// C = diag(a_scale) (A W^T) diag(w_scale) for few tiles: K split over `ways` programs per
    /// 128 x 128 tile of C, each through six stages of 32 KiB. Then each program stores its sum
    /// (f32 or exact i32) into its block of `partial` and tells each other program of the tile (a
    /// semaphore per program and consumer), and adds up the slices of the tile it owns (64 x 32,
    /// the slice `q` of consumer `h` to program `(4 * h + q) % ways`): its own sum of it, then the
    /// others' in the tile's program order (the same sum, bit for bit, every launch), copied by TMA
    /// into `part` (SLOTS buffers per consumer, as many on the way at once, in the shared memory the
    /// stages used); then scales and stores it (the tile's scales copied while it waits for the
    /// others' sums). Every program of a tile waits for all the others, so they must run at once:
    /// the dispatchers launch no more programs than the GPU has SMs, and the interpreter runs as
    /// many at once. Any M, N and K, as for `scaled_matmul`. (`matmul_split` in
    /// `kernels/src/matmul.rs` and `linear_split` in `kernels/src/linear.rs` exchange their sums the
    /// same way: with the functions of [`gemm_fns::split_k`](crate::gemm_fns::split_k).)
    #[kernel(grid = (ways * cdiv(M, BM) * cdiv(N, BN),), warpgroups = 3, warpgroup_axis = wg, max_registers = 168,
             ragged(M, N, K), consts(BM = 128, BN = 128, BK = 128, STAGES = 6, SLOTS = 8, LOADS = 2 * SLOTS),
             instances((f8e4m3, f32), (i8, i32)))]
    pub fn scaled_matmul_split<T, A>(
        a: Gmem<T, M, K>,
        w: Gmem<T, N, K>,
        a_scale: Gmem<f32, M>,
        w_scale: Gmem<f32, N>,
        c: GmemMut<bf16, M, N>,
        partial: GmemMut<A, P, BN>,
        sems: GmemMut<u32, S>,
        ways: i32,
    ) {
        // Program `share` of the tile's `ways` takes K's steps [share * all / ways, (share + 1) * all / ways).
        let (tile, share, all_steps) = (program_id(0) / ways, program_id(0) % ways, cdiv(K, BK));
        let first = share * all_steps / ways;
        let steps = (share + 1) * all_steps / ways - first;
        let (ti, tj) = (tile / cdiv(N, BN), tile % cdiv(N, BN));
        // Each consumer's sum lives through both scopes below (the producer's goes unused).
        run_scoped(|acc: Acc<A, 64, BN>| {
            run_scoped(
                collective_axes = [wg],
                |a_s: Smem<T, STAGES, 2, 64, BK, Swizzle128>,
                 w_s: Smem<T, STAGES, BN, BK, Swizzle128>,
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
                |part: Smem<A, 2, SLOTS, 64, 32, Swizzle128>,
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
                        // This consumer's half of the tile: its blocks of `partial` and its
                        // semaphores, one of each per program.
                        let slot = 2 * tile + h;
                        publish::<A, BN>(acc, partial, sems, ways, slot, share);
                        let others = ways - 1;
                        #[unroll]
                        for q in 0..4 {
                            if (4 * h + q) % ways == share {
                                let sum = slice_sum::<A, SLOTS, { q }>(
                                    acc, partial, part, loaded, ways, slot, share, others, h,
                                );
                                let y = sum.cast::<f32>()
                                    * a_scale_s.at(h).load(Layout::WgmmaRow).broadcast([64, 32], Layout::Wgmma)
                                    * w_scale_s
                                        .slice([32 * q..32 * q + 32])
                                        .load(Layout::WgmmaCol)
                                        .broadcast([64, 32], Layout::Wgmma);
                                c.tile([2 * ti + h, 4 * tj + q], [64, 32]).store(y.cast::<bf16>());
                            }
                        }
                    }
                },
            );
        });
    }

    /// C = diag(a_scale) (A W^T) diag(w_scale) for decoding-sized M (at most RN rows of A per
    /// program), computed as C^T = W A^T, the skinny GEMM of `kernels/src/matmul.rs` with 8-bit,
    /// 128-wide K steps: 64 rows of W fill the wgmma's 64 rows and the RN rows of A its N, so the
    /// stages hold W, not the zero rows a 64-row tile of A would add. WGS - 1 consumer warpgroups
    /// take 64 rows of W each; with SPLIT > 1 the programs of a cluster take shares of K and pass
    /// their partial sums down the cluster (program SPLIT - 1 sends its sum into SPLIT - 2's
    /// `part` with `copy_smem_to_peer`, which adds its own and sends on) to program 0, which
    /// scales the sum and stores it. Any M, N and K, as for `scaled_matmul`.
    #[kernel(grid = (SPLIT * cdiv(M, RN) * cdiv(N, 64 * WN),), cluster = (SPLIT,), warpgroups = WGS,
             warpgroup_axis = wg, max_registers = 168, ragged(M, N, K),
             consts(WN = WGS - 1, COPIES = WGS, BK = 128),
             instances((f8e4m3, f32, 16, 2, 18, 1), (f8e4m3, f32, 16, 3, 10, 1), (f8e4m3, f32, 16, 2, 17, 2),
                       (f8e4m3, f32, 16, 2, 17, 4), (f8e4m3, f32, 32, 2, 15, 1), (f8e4m3, f32, 32, 3, 9, 1),
                       (f8e4m3, f32, 32, 2, 14, 2), (f8e4m3, f32, 32, 2, 14, 4), (f8e4m3, f32, 64, 2, 11, 1),
                       (f8e4m3, f32, 64, 3, 8, 1), (f8e4m3, f32, 64, 2, 10, 2), (f8e4m3, f32, 64, 2, 10, 4),
                       (i8, i32, 16, 2, 18, 1), (i8, i32, 16, 3, 10, 1), (i8, i32, 16, 2, 17, 2), (i8, i32, 16, 2, 17, 4),
                       (i8, i32, 32, 2, 15, 1), (i8, i32, 32, 3, 9, 1), (i8, i32, 32, 2, 14, 2), (i8, i32, 32, 2, 14, 4),
                       (i8, i32, 64, 2, 11, 1), (i8, i32, 64, 3, 8, 1), (i8, i32, 64, 2, 10, 2), (i8, i32, 64, 2, 10, 4)))]
    pub fn scaled_matmul_skinny<T, A, const RN: usize, const WGS: usize, const STAGES: usize, const SPLIT: usize>(
        a: Gmem<T, M, K>,
        w: Gmem<T, N, K>,
        a_scale: Gmem<f32, M>,
        w_scale: Gmem<f32, N>,
        c: GmemMut<bf16, M, N>,
    ) {
        // Program `rank` of the cluster takes steps [rank * all / SPLIT, (rank + 1) * all / SPLIT).
        let (rank, unit, all_steps) = (cluster_rank(), program_id(0) / SPLIT, cdiv(K, BK));
        let first = rank * all_steps / SPLIT;
        let steps = (rank + 1) * all_steps / SPLIT - first;
        let (ti, tj) = (unit / cdiv(N, 64 * WN), unit % cdiv(N, 64 * WN));
        run_scoped(
            collective_axes = [wg],
            |a_s: Smem<T, STAGES, RN, BK, Swizzle128>,
             w_s: Smem<T, STAGES, WN, 64, BK, Swizzle128>,
             ring: Pipeline<STAGES, COPIES, WN>,
             #[when(SPLIT > 1)] part: Smem<A, WN, 64, RN>,
             #[when(SPLIT > 1)] received: Barrier<WN>,
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
                    run_scoped(|acc: Acc<A, 64, RN>| {
                        pipeline_consume(ring, steps, |k, s| {
                            // A's stage is RN x K: `.t()` is the K x RN operand, K-major.
                            wgmma(acc, w_s.at(s).at(h), a_s.at(s).t());
                        });
                        if SPLIT > 1 {
                            pass_down::<A, SPLIT>(acc, part, received, rank, h);
                        }
                        if rank == 0 {
                            // The 64 x RN block of C^T, scaled (W's scales along its rows, A's
                            // along its columns), through shared memory into C's RN x 64 tile.
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
}

pub use scaled::{scaled_matmul, scaled_matmul_overlapped, scaled_matmul_skinny, scaled_matmul_split, ALL_PTX};

// The dispatchers: each `Variant` and its instance, for fp8 and int8.
dispatchers! {
    dtypes {
        fp8 (T = F8E4M3, A = f32): fp8_matmul, fp8_matmul_variant, interpret_fp8_matmul, interpret_fp8_matmul_variant;
        int8 (T = i8, A = i32): i8_matmul, i8_matmul_variant, interpret_i8_matmul, interpret_i8_matmul_variant;
    }
    {
        doc = "C = diag(a_scale) (A W^T) diag(w_scale)";
        args(a: T, w: T, a_scale: f32, w_scale: f32; c: bf16);
        variant = variant(a.shape().first(), w.shape().first(), a.shape().get(1));
        match |v| v {
            split Variant::Split(ways) => scaled_matmul_split<T, A> []
                (ways = ways, m = dim(a.shape(), 0), n = dim(w.shape(), 0)),
            Variant::Wide => scaled_matmul<T, A, 256, 3>,
            Variant::Mid => scaled_matmul<T, A, 192, 4>,
            Variant::Overlapped => scaled_matmul_overlapped<T, A, 132>,
            Variant::Narrow => scaled_matmul<T, A, 64, 8>,
            Variant::Skinny(Rows::R16, Spread::One) => scaled_matmul_skinny<T, A, 16, 2, 18, 1>,
            Variant::Skinny(Rows::R16, Spread::Two) => scaled_matmul_skinny<T, A, 16, 3, 10, 1>,
            Variant::Skinny(Rows::R16, Spread::SplitK2) => scaled_matmul_skinny<T, A, 16, 2, 17, 2>,
            Variant::Skinny(Rows::R16, Spread::SplitK4) => scaled_matmul_skinny<T, A, 16, 2, 17, 4>,
            Variant::Skinny(Rows::R32, Spread::One) => scaled_matmul_skinny<T, A, 32, 2, 15, 1>,
            Variant::Skinny(Rows::R32, Spread::Two) => scaled_matmul_skinny<T, A, 32, 3, 9, 1>,
            Variant::Skinny(Rows::R32, Spread::SplitK2) => scaled_matmul_skinny<T, A, 32, 2, 14, 2>,
            Variant::Skinny(Rows::R32, Spread::SplitK4) => scaled_matmul_skinny<T, A, 32, 2, 14, 4>,
            Variant::Skinny(Rows::R64, Spread::One) => scaled_matmul_skinny<T, A, 64, 2, 11, 1>,
            Variant::Skinny(Rows::R64, Spread::Two) => scaled_matmul_skinny<T, A, 64, 3, 8, 1>,
            Variant::Skinny(Rows::R64, Spread::SplitK2) => scaled_matmul_skinny<T, A, 64, 2, 10, 2>,
            Variant::Skinny(Rows::R64, Spread::SplitK4) => scaled_matmul_skinny<T, A, 64, 2, 10, 4>,
        }
    }
}

/// The kernels the dispatchers choose from: one per tile size, the split-K one and the skinny ones.
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
