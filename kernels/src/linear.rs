//! A linear layer with its bias and activation fused into the GEMM's epilogue, as a transformer's
//! MLP runs it: Y = act(X W^T + b), X (M x K, tokens by features), W (N x K, as `nn.Linear`
//! stores it), b (N), Y (M x N), all bf16 or f16 with f32 accumulation.
//!
//! [`linear`] is the persistent warp-specialized GEMM of `kernels/src/matmul.rs` (128 x 256 tiles,
//! a 3-stage `Pipeline`, two consumer warpgroups of m64n256k16 WGMMAs) reading W K-major, as the
//! quantized GEMMs do, and the producer copies each tile's 256 biases with TMA (a second,
//! two-stage `Pipeline`). The epilogue, 64 columns at a time, adds the bias and applies the
//! activation in f32 before rounding: ReLU, GELU (tanh form, as PyTorch's `approximate="tanh"`
//! and cuBLASLt's GELU epilogue) or SiLU, or none. The activation is a const parameter of the
//! kernel (`ACT`, an [`Activation::code`]), which the kernel function `activation` reads with a
//! condition known when the kernel is read, so each instance carries only its own. Four tile
//! sizes, 128 x 256, 128 x 192, 128 x 128 with overlapped epilogues ([`linear_overlapped`]) and
//! 128 x 64, are chosen by the waves they make (`kernels/src/waves.rs`); a decoding-sized M (64
//! tokens or fewer) gets [`linear_skinny`], which computes Y^T = W X^T with 64-row slabs of W
//! streamed through deep rings, as the GEMMs' skinny kernels do, and takes the activation at
//! launch; so does [`linear_split`], which splits K over several programs per 128 x 128 tile where
//! few tiles would leave SMs idle and K is long ([`Workspace`]).
//!
//! The four are generic kernels of one `#[kernels]` module ([`fused`]), sharing its kernel
//! functions (the activations, written once; the tiles' epilogue) and those of the libraries the
//! GEMM families share ([`gemm_fns`](crate::gemm_fns): the tile order, the split-K exchange, the
//! skinny kernel's sums down the cluster); each instance
//! is listed once, in its kernel's `instances(..)`, which [`ALL_PTX`] lists as
//! `linear::<bf16, 2, 256, 3>` (dtype, ACT, BN, STAGES), `linear_overlapped::<bf16, 2>` (dtype,
//! ACT), `linear_split::<bf16>` and `linear_skinny::<bf16, 16, 2, 2, 9, 1>` (dtype, RN, WGS, KSUB,
//! STAGES, SPLIT). The producers' steps are written out, as in `kernels/src/quantized.rs` (which
//! says why).

use tessel::prelude::*;

use crate::waves::{self, dim, Rows, Spread};
use crate::workspace::Workspace;

/// The linear layer's family: four generic kernels and the kernel functions they share. Every
/// instance is listed once, in its kernel's `instances(..)`, which `ALL_PTX` (the `#[kernels]`
/// module's list of every instance's PTX) follows; the dispatchers below map each `Variant` and
/// [`Activation`] to its instance.
#[kernels(uses(crate::gemm_fns::tiles, crate::gemm_fns::split_k))]
pub mod fused {
    use tessel::prelude::*;

    /// The activation of the f32 pre-activation `z` with code ACT ([`Activation::code`](crate::linear::Activation::code)):
    /// none, ReLU, GELU in its tanh form (0.5 z (1 + tanh(sqrt(2 / pi) (z + 0.044715 z^3)))) or
    /// SiLU. ACT is known when the kernel is read, so a call keeps only its activation.
    fn activation<const ACT: usize>(z: Regs<f32, _, _, Layout::Wgmma>) -> Regs<f32, _, _, Layout::Wgmma> {
        if ACT == 1 {
            max(z, 0.0)
        } else if ACT == 2 {
            0.5 * z * (1.0 + tanh(z * (0.7978846 + 0.035677407 * z * z)))
        } else if ACT == 3 {
            z * recip(1.0 + exp(-z))
        } else {
            z
        }
    }

    /// The activation with the code `act` chosen at launch: one uniform branch.
    fn activation_at(z: Regs<f32, _, _, Layout::Wgmma>, act: i32) -> Regs<f32, _, _, Layout::Wgmma> {
        if act == 1 {
            activation::<1>(z)
        } else if act == 2 {
            activation::<2>(z)
        } else if act == 3 {
            activation::<3>(z)
        } else {
            activation::<0>(z)
        }
    }

    /// A consumer's 64-row result `acc` (BLOCKS x 64 columns) plus its biases, activated, into
    /// its BLOCKS 64 x 64 output buffers, a block at a time (a block's biases and the accumulator
    /// fit in the registers).
    fn bias_act<T, const ACT: usize, const BLOCKS: usize>(
        acc: Acc<f32, 64, _>,
        b_s: Smem<T, _>,
        y_s: Smem<T, _, 64, 64, Swizzle128>,
    ) {
        #[unroll]
        for q in 0..BLOCKS {
            let bias = b_s.slice([64 * q..64 * q + 64]).load(Layout::WgmmaCol);
            let z = acc.slice([.., 64 * q..64 * q + 64]).load() + bias.cast::<f32>().broadcast([64, 64], Layout::Wgmma);
            y_s.at(q).store(activation::<ACT>(z).cast::<T>());
        }
    }

    /// Y = act(X W^T + b) with 128 x BN tiles, STAGES stages, and the activation ACT (an
    /// [`Activation::code`](crate::linear::Activation::code)). Any M, N and K: the last tiles overhang the
    /// arrays, where TMA reads zeros (which add nothing to the products) and drops what a store
    /// writes outside.
    #[kernel(grid = (132,), warpgroups = 3, warpgroup_axis = wg, max_registers = 168,
             consts(BM = 128, BK = 64, GROUP = 8, BLOCKS = BN / 64), ragged(M, N, K),
             instances((bf16, 0, 256, 3), (bf16, 1, 256, 3), (bf16, 2, 256, 3), (bf16, 3, 256, 3),
                       (bf16, 0, 192, 4), (bf16, 1, 192, 4), (bf16, 2, 192, 4), (bf16, 3, 192, 4),
                       (bf16, 0, 64, 8), (bf16, 1, 64, 8), (bf16, 2, 64, 8), (bf16, 3, 64, 8),
                       (f16, 0, 256, 3), (f16, 1, 256, 3), (f16, 2, 256, 3), (f16, 3, 256, 3),
                       (f16, 0, 192, 4), (f16, 1, 192, 4), (f16, 2, 192, 4), (f16, 3, 192, 4),
                       (f16, 0, 64, 8), (f16, 1, 64, 8), (f16, 2, 64, 8), (f16, 3, 64, 8)))]
    pub fn linear<T, const ACT: usize, const BN: usize, const STAGES: usize>(
        x: Gmem<T, M, K>,
        w: Gmem<T, N, K>,
        b: Gmem<T, N>,
        y: GmemMut<T, M, N>,
    ) {
        let (tile_rows, tile_cols, steps) = (cdiv(M, BM), cdiv(N, BN), cdiv(K, BK));
        let (p, programs) = (program_id(0), num_programs(0));
        let tiles = tile_rows * tile_cols;
        run_scoped(
            collective_axes = [wg],
            |x_s: Smem<T, STAGES, 2, 64, BK, Swizzle128>,
             w_s: Smem<T, STAGES, BN, BK, Swizzle128>,
             y_s: Smem<T, 2, BLOCKS, 64, 64, Swizzle128>,
             ring: Pipeline<STAGES, 3, 2>,
             // A tile's biases: one copy, two consumers.
             b_s: Smem<T, 2, BN>,
             biases: Pipeline<2, 1, 2>| {
                if warpgroup_id() == 0 {
                    set_max_registers(40);
                    for t in 0..(tiles - p + programs - 1) / programs {
                        let (ti, tj) = tile_order::<GROUP>(p + t * programs, tile_rows, tile_cols);
                        pipeline_produce(biases, 1, |_k, s, bar| {
                            copy_gmem_to_smem(b.tile([tj]), b_s.at(s), bar);
                        });
                        pipeline_produce(ring, steps, |k, s, bar| {
                            copy_gmem_to_smem(x.tile([2 * ti, k]), x_s.at(s).at(0), bar);
                            copy_gmem_to_smem(x.tile([2 * ti + 1, k]), x_s.at(s).at(1), bar);
                            copy_gmem_to_smem(w.tile([tj, k]), w_s.at(s), bar);
                        });
                    }
                } else {
                    set_max_registers(232);
                    let h = warpgroup_id() - 1;
                    run_scoped(|acc: Acc<f32, 64, BN>| {
                        for t in 0..(tiles - p + programs - 1) / programs {
                            let (ti, tj) = tile_order::<GROUP>(p + t * programs, tile_rows, tile_cols);
                            pipeline_consume(ring, steps, |k, s| {
                                // W's stage is N x K: `.t()` is the K x N operand, K-major.
                                wgmma(acc, x_s.at(s).at(h), w_s.at(s).t(), accumulate = k > 0);
                            });
                            // The previous tile's stores must have read y_s before it is rewritten.
                            wait_smem_to_gmem(0);
                            pipeline_consume(biases, 1, |_k, s| {
                                bias_act::<T, ACT, BLOCKS>(acc, b_s.at(s), y_s.at(h));
                            });
                            commit_smem();
                            #[unroll]
                            for q in 0..BLOCKS {
                                copy_smem_to_gmem(y_s.at(h).at(q), y.tile([2 * ti + h, BLOCKS * tj + q]));
                            }
                        }
                    });
                }
            },
        );
    }

    /// The same layer with 128 x 128 tiles whose epilogue runs under the next tile's first wgmmas
    /// (as `matmul_overlapped` in `kernels/src/matmul.rs`): each consumer's 64 x 256 accumulator
    /// holds two 64 x 128 tiles that take turns (`half`). For shapes whose wide tiles leave the
    /// last wave part-empty. Any M, N and K, as for `linear`.
    #[kernel(grid = (132,), warpgroups = 3, warpgroup_axis = wg, max_registers = 168,
             consts(BM = 128, BN = 128, BK = 64, STAGES = 6, GROUP = 8), ragged(M, N, K),
             instances((bf16, 0), (bf16, 1), (bf16, 2), (bf16, 3), (f16, 0), (f16, 1), (f16, 2), (f16, 3)))]
    pub fn linear_overlapped<T, const ACT: usize>(
        x: Gmem<T, M, K>,
        w: Gmem<T, N, K>,
        b: Gmem<T, N>,
        y: GmemMut<T, M, N>,
    ) {
        let (tile_rows, tile_cols, steps) = (cdiv(M, BM), cdiv(N, BN), cdiv(K, BK));
        let (p, programs) = (program_id(0), num_programs(0));
        let tiles = tile_rows * tile_cols;
        // This program's tiles: p, p + programs, ..
        let mine = (tiles - p + programs - 1) / programs;
        run_scoped(
            collective_axes = [wg],
            |x_s: Smem<T, STAGES, 2, 64, BK, Swizzle128>,
             w_s: Smem<T, STAGES, BN, BK, Swizzle128>,
             y_s: Smem<T, 2, 2, 64, 64, Swizzle128>,
             ring: Pipeline<STAGES, 3, 2>,
             b_s: Smem<T, 2, BN>,
             biases: Pipeline<2, 1, 2>| {
                if warpgroup_id() == 0 {
                    set_max_registers(40);
                    for t in 0..mine {
                        let (ti, tj) = tile_order::<GROUP>(p + t * programs, tile_rows, tile_cols);
                        pipeline_produce(biases, 1, |_k, s, bar| {
                            copy_gmem_to_smem(b.tile([tj]), b_s.at(s), bar);
                        });
                        pipeline_produce(ring, steps, |k, s, bar| {
                            copy_gmem_to_smem(x.tile([2 * ti, k]), x_s.at(s).at(0), bar);
                            copy_gmem_to_smem(x.tile([2 * ti + 1, k]), x_s.at(s).at(1), bar);
                            copy_gmem_to_smem(w.tile([tj, k]), w_s.at(s), bar);
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
                                    // Shows ptxas that the other half's wgmmas are complete
                                    // (nothing is in flight here; src/lib.md, wgmma windows).
                                    wgmma_wait(0);
                                    pipeline_consume(ring, steps, |k, s| {
                                        let out = acc.slice([.., this_half..this_half + BN]);
                                        wgmma(out, x_s.at(s).at(h), w_s.at(s).t(), accumulate = k > 0);
                                        if k == 0 && t > 0 {
                                            // The previous tile's result, while this one's first
                                            // wgmmas run.
                                            wait_smem_to_gmem(0);
                                            pipeline_consume(biases, 1, |_k, s| {
                                                let done = acc.slice([.., other_half..other_half + BN]);
                                                bias_act::<T, ACT, 2>(done, b_s.at(s), y_s.at(h));
                                            });
                                            commit_smem();
                                            #[unroll]
                                            for q in 0..2 {
                                                copy_smem_to_gmem(y_s.at(h).at(q), y.tile([2 * pi + h, 2 * pj + q]));
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
                                pipeline_consume(biases, 1, |_k, s| {
                                    let done = acc.slice([.., BN * half..BN * half + BN]);
                                    bias_act::<T, ACT, 2>(done, b_s.at(s), y_s.at(h));
                                });
                                commit_smem();
                                #[unroll]
                                for q in 0..2 {
                                    copy_smem_to_gmem(y_s.at(h).at(q), y.tile([2 * pi + h, 2 * pj + q]));
                                }
                            }
                        }
                    });
                }
            },
        );
    }

    /// Y = act(X W^T + b) for few tiles: K split over `ways` programs per 128 x 128 tile of Y, each
    /// through six stages, their partial sums exchanged and added up as `scaled_matmul_split` in
    /// `kernels/src/quantized.rs` says, each program adding up the 64 x 32 slices of the tile it
    /// owns in buffers that take the stages' shared memory, then adding their biases (copied while
    /// it waits for the others' sums) and applying the activation (chosen at launch, `act`, as in
    /// `linear_skinny`). Any M, N and K, as for `linear`.
    #[kernel(grid = (ways * cdiv(M, BM) * cdiv(N, BN),), warpgroups = 3, warpgroup_axis = wg, max_registers = 168,
             ragged(M, N, K), consts(BM = 128, BN = 128, BK = 64, STAGES = 6, SLOTS = 8, LOADS = 2 * SLOTS),
             instances(bf16, f16))]
    pub fn linear_split<T>(
        x: Gmem<T, M, K>,
        w: Gmem<T, N, K>,
        b: Gmem<T, N>,
        y: GmemMut<T, M, N>,
        partial: GmemMut<f32, P, BN>,
        sems: GmemMut<u32, S>,
        ways: i32,
        act: i32,
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
                |x_s: Smem<T, STAGES, 2, 64, BK, Swizzle128>,
                 w_s: Smem<T, STAGES, BN, BK, Swizzle128>,
                 ring: Pipeline<STAGES, 3, 2>| {
                    if warpgroup_id() == 0 {
                        pipeline_produce(ring, steps, |k, s, bar| {
                            copy_gmem_to_smem(x.tile([2 * ti, first + k]), x_s.at(s).at(0), bar);
                            copy_gmem_to_smem(x.tile([2 * ti + 1, first + k]), x_s.at(s).at(1), bar);
                            copy_gmem_to_smem(w.tile([tj, first + k]), w_s.at(s), bar);
                        });
                    } else {
                        let h = warpgroup_id() - 1;
                        pipeline_consume(ring, steps, |k, s| {
                            // W's stage is N x K: `.t()` is the K x N operand, K-major.
                            wgmma(acc, x_s.at(s).at(h), w_s.at(s).t());
                        });
                    }
                },
            );
            // The stages' shared memory, free now, holds the exchange's buffers.
            run_scoped(
                collective_axes = [wg],
                |part: Smem<f32, 2, SLOTS, 64, 32, Swizzle128>,
                 loaded: Barrier<1, LOADS>,
                 // The tile's biases (one copy).
                 b_s: Smem<T, BN>,
                 biases: Barrier<1>| {
                    if warpgroup_id() == 0 {
                        copy_gmem_to_smem(b.tile([tj]), b_s, biases);
                    } else {
                        let h = warpgroup_id() - 1;
                        barrier_wait(biases);
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
                                let bias = b_s.slice([32 * q..32 * q + 32]).load(Layout::WgmmaCol);
                                let z = sum + bias.cast::<f32>().broadcast([64, 32], Layout::Wgmma);
                                y.tile([2 * ti + h, 4 * tj + q], [64, 32]).store(activation_at(z, act).cast::<T>());
                            }
                        }
                    }
                },
            );
        });
    }

    /// Y = act(X W^T + b) for decoding-sized M (at most RN rows of X per program), computed as
    /// Y^T = W X^T, the skinny GEMM of `kernels/src/matmul.rs` with W read K-major: 64 rows of W
    /// fill the wgmma's 64 rows and the RN rows of X its N, streamed through a deep ring of KSUB x
    /// 64-wide steps; WGS - 1 consumer warpgroups take 64 rows of W each, and with SPLIT > 1 the
    /// programs of a cluster take shares of K and pass their partial sums down the cluster to
    /// program 0, which adds the biases, applies the activation and stores. The activation is
    /// chosen at launch (`act`, an [`Activation::code`](crate::linear::Activation::code)): one uniform
    /// branch in an epilogue that the stream of W dwarfs, where a kernel per activation would make
    /// four times the kernels. Any M, N and K, as for `linear`.
    #[kernel(grid = (SPLIT * cdiv(M, RN) * cdiv(N, 64 * WN),), cluster = (SPLIT,), warpgroups = WGS,
             warpgroup_axis = wg, max_registers = 168, ragged(M, N, K),
             consts(WN = WGS - 1, COPIES = WGS * KSUB, BK = 64 * KSUB),
             instances((bf16, 16, 2, 2, 9, 1), (bf16, 16, 3, 1, 10, 1), (bf16, 16, 2, 2, 8, 2), (bf16, 16, 2, 2, 8, 4),
                       (bf16, 32, 2, 2, 7, 1), (bf16, 32, 3, 1, 10, 1), (bf16, 32, 2, 2, 6, 2), (bf16, 32, 2, 2, 6, 4),
                       (bf16, 64, 2, 2, 6, 1), (bf16, 64, 3, 1, 8, 1), (bf16, 64, 2, 2, 6, 2), (bf16, 64, 2, 2, 6, 4),
                       (f16, 16, 2, 2, 9, 1), (f16, 16, 3, 1, 10, 1), (f16, 16, 2, 2, 8, 2), (f16, 16, 2, 2, 8, 4),
                       (f16, 32, 2, 2, 7, 1), (f16, 32, 3, 1, 10, 1), (f16, 32, 2, 2, 6, 2), (f16, 32, 2, 2, 6, 4),
                       (f16, 64, 2, 2, 6, 1), (f16, 64, 3, 1, 8, 1), (f16, 64, 2, 2, 6, 2), (f16, 64, 2, 2, 6, 4)))]
    pub fn linear_skinny<
        T,
        const RN: usize,
        const WGS: usize,
        const KSUB: usize,
        const STAGES: usize,
        const SPLIT: usize,
    >(
        x: Gmem<T, M, K>,
        w: Gmem<T, N, K>,
        b: Gmem<T, N>,
        y: GmemMut<T, M, N>,
        act: i32,
    ) {
        // Program `rank` of the cluster takes steps [rank * all / SPLIT, (rank + 1) * all / SPLIT).
        let (rank, unit, all_steps) = (cluster_rank(), program_id(0) / SPLIT, cdiv(K, BK));
        let first = rank * all_steps / SPLIT;
        let steps = (rank + 1) * all_steps / SPLIT - first;
        let (ti, tj) = (unit / cdiv(N, 64 * WN), unit % cdiv(N, 64 * WN));
        run_scoped(
            collective_axes = [wg],
            // A step is KSUB 64-wide slices of K: RN x 64 of X, and 64 x 64 of W per consumer.
            |x_s: Smem<T, STAGES, KSUB, RN, 64, Swizzle128>,
             w_s: Smem<T, STAGES, KSUB, WN, 64, 64, Swizzle128>,
             ring: Pipeline<STAGES, COPIES, WN>,
             #[when(SPLIT > 1)] part: Smem<f32, WN, 64, RN>,
             #[when(SPLIT > 1)] received: Barrier<WN>,
             // Each consumer's 64 biases, copied first (one arrival each).
             b_s: Smem<T, WN, 64>,
             biases: Barrier<WN>,
             y_s: Smem<T, WN, 64, RN>| {
                if warpgroup_id() == 0 {
                    // Only program 0 stores (and waits for its biases to land).
                    if rank == 0 {
                        #[unroll]
                        for v in 0..WN {
                            copy_gmem_to_smem(b.tile([WN * tj + v]), b_s.at(v), biases);
                        }
                    }
                    pipeline_produce(ring, steps, |k, s, bar| {
                        #[unroll]
                        for q in 0..KSUB {
                            let kk = KSUB * (first + k) + q;
                            copy_gmem_to_smem(x.tile([ti, kk]), x_s.at(s).at(q), bar);
                            #[unroll]
                            for v in 0..WN {
                                copy_gmem_to_smem(w.tile([WN * tj + v, kk]), w_s.at(s).at(q).at(v), bar);
                            }
                        }
                    });
                } else {
                    let h = warpgroup_id() - 1;
                    run_scoped(|acc: Acc<f32, 64, RN>| {
                        pipeline_consume(ring, steps, |k, s| {
                            #[unroll]
                            for q in 0..KSUB {
                                // X's slice is RN x 64: `.t()` is the 64 x RN operand, K-major.
                                wgmma(acc, w_s.at(s).at(q).at(h), x_s.at(s).at(q).t());
                            }
                        });
                        if SPLIT > 1 {
                            pass_down::<f32, SPLIT>(acc, part, received, rank, h);
                        }
                        if rank == 0 {
                            // The 64 x RN block of Y^T: biases along its rows, the activation,
                            // then through shared memory into Y's RN x 64 tile.
                            barrier_wait(biases);
                            let z = acc.load()
                                + b_s.at(h).load(Layout::WgmmaRow).cast::<f32>().broadcast([64, RN], Layout::Wgmma);
                            y_s.at(h).store(activation_at(z, act).cast::<T>());
                            commit_smem();
                            y.tile([ti, WN * tj + h], [RN, 64]).store(y_s.at(h).t().load(Layout::Strided));
                        }
                    });
                }
            },
        );
    }
}

pub use fused::{linear, linear_overlapped, linear_skinny, linear_split, ALL_PTX};

/// The activation after the bias.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Activation {
    None,
    Relu,
    /// GELU in its tanh form: 0.5 z (1 + tanh(sqrt(2 / pi) (z + 0.044715 z^3))).
    Gelu,
    /// z sigmoid(z).
    Silu,
}

impl Activation {
    /// The number a skinny kernel's `act` takes for it.
    pub fn code(self) -> i32 {
        match self {
            Activation::None => 0,
            Activation::Relu => 1,
            Activation::Gelu => 2,
            Activation::Silu => 3,
        }
    }

    /// Its value on one f64, the reference the tests and benchmarks check against.
    pub fn apply(self, z: f64) -> f64 {
        match self {
            Activation::None => z,
            Activation::Relu => z.max(0.0),
            Activation::Gelu => {
                0.5 * z * (1.0 + ((2.0 / std::f64::consts::PI).sqrt() * (z + 0.044715 * z.powi(3))).tanh())
            }
            Activation::Silu => z / (1.0 + (-z).exp()),
        }
    }
}

// The dispatchers: each `Variant` and `Activation` and its instance, for bf16 and f16 (an
// activation's `ACT` is its `Activation::code`).
dispatchers! {
    dtypes {
        bf16_fns (T = bf16, A = f32): linear_bf16, linear_bf16_variant, interpret_linear_bf16, interpret_linear_bf16_variant;
        f16_fns (T = f16, A = f32): linear_f16, linear_f16_variant, interpret_linear_f16, interpret_linear_f16_variant;
    }
    {
        doc = "Y = act(X W^T + b)";
        args(x: T, w: T, b: T; y: T, act: Activation);
        variant = variant(x.shape(), w.shape());
        match |v| (v, act) {
            split (Variant::Split(ways), _) => linear_split<T> [act.code()]
                (ways = ways, m = dim(x.shape(), 0), n = dim(w.shape(), 0)),
            (Variant::Wide, Activation::None) => linear<T, 0, 256, 3>,
            (Variant::Wide, Activation::Relu) => linear<T, 1, 256, 3>,
            (Variant::Wide, Activation::Gelu) => linear<T, 2, 256, 3>,
            (Variant::Wide, Activation::Silu) => linear<T, 3, 256, 3>,
            (Variant::Mid, Activation::None) => linear<T, 0, 192, 4>,
            (Variant::Mid, Activation::Relu) => linear<T, 1, 192, 4>,
            (Variant::Mid, Activation::Gelu) => linear<T, 2, 192, 4>,
            (Variant::Mid, Activation::Silu) => linear<T, 3, 192, 4>,
            (Variant::Narrow, Activation::None) => linear<T, 0, 64, 8>,
            (Variant::Narrow, Activation::Relu) => linear<T, 1, 64, 8>,
            (Variant::Narrow, Activation::Gelu) => linear<T, 2, 64, 8>,
            (Variant::Narrow, Activation::Silu) => linear<T, 3, 64, 8>,
            (Variant::Overlapped, Activation::None) => linear_overlapped<T, 0>,
            (Variant::Overlapped, Activation::Relu) => linear_overlapped<T, 1>,
            (Variant::Overlapped, Activation::Gelu) => linear_overlapped<T, 2>,
            (Variant::Overlapped, Activation::Silu) => linear_overlapped<T, 3>,
            (Variant::Skinny(Rows::R16, Spread::One), _) => linear_skinny<T, 16, 2, 2, 9, 1> [act.code()],
            (Variant::Skinny(Rows::R16, Spread::Two), _) => linear_skinny<T, 16, 3, 1, 10, 1> [act.code()],
            (Variant::Skinny(Rows::R16, Spread::SplitK2), _) => linear_skinny<T, 16, 2, 2, 8, 2> [act.code()],
            (Variant::Skinny(Rows::R16, Spread::SplitK4), _) => linear_skinny<T, 16, 2, 2, 8, 4> [act.code()],
            (Variant::Skinny(Rows::R32, Spread::One), _) => linear_skinny<T, 32, 2, 2, 7, 1> [act.code()],
            (Variant::Skinny(Rows::R32, Spread::Two), _) => linear_skinny<T, 32, 3, 1, 10, 1> [act.code()],
            (Variant::Skinny(Rows::R32, Spread::SplitK2), _) => linear_skinny<T, 32, 2, 2, 6, 2> [act.code()],
            (Variant::Skinny(Rows::R32, Spread::SplitK4), _) => linear_skinny<T, 32, 2, 2, 6, 4> [act.code()],
            (Variant::Skinny(Rows::R64, Spread::One), _) => linear_skinny<T, 64, 2, 2, 6, 1> [act.code()],
            (Variant::Skinny(Rows::R64, Spread::Two), _) => linear_skinny<T, 64, 3, 1, 8, 1> [act.code()],
            (Variant::Skinny(Rows::R64, Spread::SplitK2), _) => linear_skinny<T, 64, 2, 2, 6, 2> [act.code()],
            (Variant::Skinny(Rows::R64, Spread::SplitK4), _) => linear_skinny<T, 64, 2, 2, 6, 4> [act.code()],
        }
    }
}

/// The layer's kernels: one per tile size (and activation), the split-K one and the skinny ones.
pub use waves::Kernel as Variant;

/// The kernel for X (M x K) and W (N x K): `TESSEL_LINEAR=wide|mid|overlapped|narrow`, a split of
/// K (`split`, `split3` .. `split32`) or a skinny kernel's name (`skinny16`, `skinny64x2`,
/// `skinny32k4`) overrides [`choose`] (for tuning).
pub fn variant(x: &[usize], w: &[usize]) -> Variant {
    let chosen = std::env::var("TESSEL_LINEAR").ok().and_then(|name| Variant::named(&name));
    chosen.unwrap_or_else(|| choose(x, w))
}

/// A skinny kernel for M <= 64 (`waves::skinny`), a split of K where few tiles would leave SMs
/// idle (`waves::split_ways`), otherwise the tile size whose waves finish first
/// (`waves::fastest`). Dimensions a tensor of the wrong rank lacks count as 0, for the launch to
/// report.
pub fn choose(x: &[usize], w: &[usize]) -> Variant {
    Variant::choose(dim(x, 0), dim(w, 0), dim(x, 1), 2)
}
