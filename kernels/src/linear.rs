//! A linear layer with its bias and activation fused into the GEMM's epilogue, as a transformer's
//! MLP runs it: Y = act(X W^T + b), X (M x K, tokens by features), W (N x K, as `nn.Linear`
//! stores it), b (N), Y (M x N), all bf16 or f16 with f32 accumulation.
//!
//! The kernel is the persistent warp-specialized GEMM of `kernels/src/matmul.rs` (128 x 256 tiles,
//! a 3-stage `Pipeline`, two consumer warpgroups of m64n256k16 WGMMAs) reading W K-major, as the
//! quantized GEMMs do, and the producer copies each tile's 256 biases with TMA (a second,
//! two-stage `Pipeline`). The epilogue, 64 columns at a time, adds the bias and applies the
//! activation in f32 before rounding: ReLU, GELU (tanh form, as PyTorch's `approximate="tanh"`
//! and cuBLASLt's GELU epilogue) or SiLU, or none. The activation is an expression of the
//! pre-activation `z`, written once (`activations!`) and passed to each instantiation of the
//! kernel text (`linear_kernels!`), so each kernel carries only its own. Four tile sizes, 128 x
//! 256, 128 x 192, 128 x 128 with overlapped epilogues and 128 x 64, are chosen by the waves they
//! make (`kernels/src/waves.rs`); a
//! decoding-sized M (64 tokens or fewer) gets `linear_skinny!`, which computes Y^T = W X^T with
//! 64-row slabs of W streamed through deep rings, as the GEMMs' skinny kernels do, and takes the
//! activation at launch; so does `linear_split!`, which splits K over several programs per
//! 128 x 128 tile where few tiles would leave SMs idle and K is long (`kernels/src/workspace.rs`).

use tessel::prelude::*;

use crate::waves::{self, dim, Rows, Spread};
use crate::workspace::Workspace;

/// Y = act(X W^T + b) with 128 x BN tiles, `act = |z| ..` the activation of the f32
/// pre-activation `z`. Any M, N and K: the last tiles overhang the arrays, where TMA reads zeros
/// (which add nothing to the products) and drops what a store writes outside.
macro_rules! linear {
    ($name:ident, $t:ident, BN = $bn:literal, STAGES = $stages:literal, act = |$z:ident| $act:expr) => {
        #[kernel(grid = (132,), warpgroups = 3, warpgroup_axis = wg, max_registers = 168,
                 consts(BM = 128, BN = $bn, BK = 64, STAGES = $stages, GROUP = 8, BLOCKS = $bn / 64), ragged(M, N, K))]
        pub fn $name(x: Gmem<$t, M, K>, w: Gmem<$t, N, K>, b: Gmem<$t, N>, y: GmemMut<$t, M, N>) {
            let (tile_rows, tile_cols, steps) = (cdiv(M, BM), cdiv(N, BN), cdiv(K, BK));
            let (p, programs) = (program_id(0), num_programs(0));
            let tiles = tile_rows * tile_cols;
            run_scoped(
                collective_axes = [wg],
                |x_s: Smem<$t, STAGES, 2, 64, BK, Swizzle128>,
                 w_s: Smem<$t, STAGES, BN, BK, Swizzle128>,
                 y_s: Smem<$t, 2, BLOCKS, 64, 64, Swizzle128>,
                 ring: Pipeline<STAGES, 3, 2>,
                 // A tile's biases: one copy, two consumers.
                 b_s: Smem<$t, 2, BN>,
                 biases: Pipeline<2, 1, 2>| {
                    if warpgroup_id() == 0 {
                        set_max_registers(40);
                        for t in 0..(tiles - p + programs - 1) / programs {
                            // L2-friendly order: GROUP tile-rows at a time, walking down each column.
                            let u = p + t * programs;
                            let first = u / (GROUP * tile_cols) * GROUP;
                            let rows = min(tile_rows - first, GROUP);
                            let (ti, tj) = (first + u % (GROUP * tile_cols) % rows, u % (GROUP * tile_cols) / rows);
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
                                let u = p + t * programs;
                                let first = u / (GROUP * tile_cols) * GROUP;
                                let rows = min(tile_rows - first, GROUP);
                                let (ti, tj) = (first + u % (GROUP * tile_cols) % rows, u % (GROUP * tile_cols) / rows);
                                pipeline_consume(ring, steps, |k, s| {
                                    // W's stage is N x K: `.t()` is the K x N operand, K-major.
                                    wgmma(acc, x_s.at(s).at(h), w_s.at(s).t(), accumulate = k > 0);
                                });
                                // The previous tile's stores must have read y_s before it is rewritten.
                                wait_smem_to_gmem(0);
                                pipeline_consume(biases, 1, |_k, s| {
                                    #[unroll]
                                    for q in 0..BLOCKS {
                                        let bias = b_s.at(s).slice([64 * q..64 * q + 64]).load(Layout::WgmmaCol);
                                        let $z = acc.slice([.., 64 * q..64 * q + 64]).load()
                                            + bias.cast::<f32>().broadcast([64, 64], Layout::Wgmma);
                                        // The activation: an expression of `z` given where the kernel is instantiated.
                                        y_s.at(h).at(q).store($act.cast::<$t>());
                                    }
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
    };
}

/// The same layer with 128 x 128 tiles whose epilogue runs under the next tile's first wgmmas
/// (as `matmul_overlapped!` in `kernels/src/matmul.rs`): each consumer's 64 x 256 accumulator holds
/// two 64 x 128 tiles that take turns (`half`). For shapes whose wide tiles leave the last wave
/// part-empty. Any M, N and K, as for `linear!`.
macro_rules! linear_overlapped {
    ($name:ident, $t:ident, act = |$z:ident| $act:expr) => {
        #[kernel(grid = (132,), warpgroups = 3, warpgroup_axis = wg, max_registers = 168,
                 consts(BM = 128, BN = 128, BK = 64, STAGES = 6, GROUP = 8), ragged(M, N, K))]
        pub fn $name(x: Gmem<$t, M, K>, w: Gmem<$t, N, K>, b: Gmem<$t, N>, y: GmemMut<$t, M, N>) {
            let (tile_rows, tile_cols, steps) = (cdiv(M, BM), cdiv(N, BN), cdiv(K, BK));
            let (p, programs) = (program_id(0), num_programs(0));
            let tiles = tile_rows * tile_cols;
            // This program's tiles: p, p + programs, ..
            let mine = (tiles - p + programs - 1) / programs;
            run_scoped(
                collective_axes = [wg],
                |x_s: Smem<$t, STAGES, 2, 64, BK, Swizzle128>,
                 w_s: Smem<$t, STAGES, BN, BK, Swizzle128>,
                 y_s: Smem<$t, 2, 2, 64, 64, Swizzle128>,
                 ring: Pipeline<STAGES, 3, 2>,
                 b_s: Smem<$t, 2, BN>,
                 biases: Pipeline<2, 1, 2>| {
                    if warpgroup_id() == 0 {
                        set_max_registers(40);
                        for t in 0..mine {
                            let u = p + t * programs;
                            let first = u / (GROUP * tile_cols) * GROUP;
                            let rows = min(tile_rows - first, GROUP);
                            let (ti, tj) = (first + u % (GROUP * tile_cols) % rows, u % (GROUP * tile_cols) / rows);
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
                                        let u = p + t * programs;
                                        let first = u / (GROUP * tile_cols) * GROUP;
                                        let rows = min(tile_rows - first, GROUP);
                                        let (ti, tj) =
                                            (first + u % (GROUP * tile_cols) % rows, u % (GROUP * tile_cols) / rows);
                                        // Shows ptxas that the other half's wgmmas are complete
                                        // (nothing is in flight here; src/lib.md, wgmma windows).
                                        wgmma_wait(0);
                                        pipeline_consume(ring, steps, |k, s| {
                                            let out = acc.slice([.., this_half..this_half + BN]);
                                            wgmma(out, x_s.at(s).at(h), w_s.at(s).t(), accumulate = k > 0);
                                            if k == 0 && t > 0 {
                                                // The previous tile's result, while this one's
                                                // first wgmmas run.
                                                wait_smem_to_gmem(0);
                                                pipeline_consume(biases, 1, |_k, s| {
                                                    #[unroll]
                                                    for q in 0..2 {
                                                        let done = acc.slice([.., other_half..other_half + BN]);
                                                        let bias = b_s
                                                            .at(s)
                                                            .slice([64 * q..64 * q + 64])
                                                            .load(Layout::WgmmaCol);
                                                        let $z = done.slice([.., 64 * q..64 * q + 64]).load()
                                                            + bias.cast::<f32>().broadcast([64, 64], Layout::Wgmma);
                                                        // The activation: an expression of `z` given where the kernel is instantiated.
                                                        y_s.at(h).at(q).store($act.cast::<$t>());
                                                    }
                                                });
                                                commit_smem();
                                                #[unroll]
                                                for q in 0..2 {
                                                    copy_smem_to_gmem(
                                                        y_s.at(h).at(q),
                                                        y.tile([2 * pi + h, 2 * pj + q]),
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
                                    pipeline_consume(biases, 1, |_k, s| {
                                        #[unroll]
                                        for q in 0..2 {
                                            let done = acc.slice([.., BN * half..BN * half + BN]);
                                            let bias = b_s.at(s).slice([64 * q..64 * q + 64]).load(Layout::WgmmaCol);
                                            let $z = done.slice([.., 64 * q..64 * q + 64]).load()
                                                + bias.cast::<f32>().broadcast([64, 64], Layout::Wgmma);
                                            // The activation: an expression of `z` given where the kernel is instantiated.
                                            y_s.at(h).at(q).store($act.cast::<$t>());
                                        }
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
    };
}

/// Y = act(X W^T + b) for decoding-sized M (at most RN rows of X per program), computed as
/// Y^T = W X^T, the skinny GEMM of `kernels/src/quantized.rs` with 16-bit operands: 64 rows of W fill
/// the wgmma's 64 rows and the RN rows of X its N, streamed through a deep ring of KSUB x 64-wide
/// steps; WN consumer warpgroups take 64 rows of W each, and with SPLIT > 1 the programs of a
/// cluster take shares of K and pass their partial sums down the cluster to program 0, which adds
/// the biases, applies the activation and stores. The activation is chosen at launch (`act`, an
/// [`Activation::code`]): one uniform branch in an epilogue that the stream of W dwarfs, where a
/// kernel per activation would make four times the kernels. Any M, N and K, as for `linear!`.
macro_rules! linear_skinny {
    ($name:ident, $t:ident, RN = $rn:literal, WARPGROUPS = $wgs:literal, KSUB = $ksub:literal,
     STAGES = $stages:literal, SPLIT = $split:tt, acts = $acts:tt) => {
        skinny_split!(linear_skinny!(@kernel $name, $t, $rn, $wgs, $ksub, $stages, $split, $acts), f32, SPLIT = $split);
    };
    (@kernel $name:ident, $t:ident, $rn:literal, $wgs:literal, $ksub:literal, $stages:literal, $split:literal,
     (none = |z| $none:expr, relu = |z| $relu:expr, gelu = |z| $gelu:expr, silu = |z| $silu:expr),
     cluster = $cluster:tt, part = ($($part:tt)*), exchange = ($($exchange:tt)*),
     shares = ($($shares:tt)*)) => {
        #[kernel(grid = (SPLIT * cdiv(M, RN) * cdiv(N, 64 * WN),), cluster = $cluster, warpgroups = $wgs,
                 warpgroup_axis = wg, max_registers = 168, ragged(M, N, K),
                 consts(RN = $rn, WN = $wgs - 1, KSUB = $ksub, COPIES = $wgs * $ksub, BK = 64 * $ksub,
                        STAGES = $stages, SPLIT = $split))]
        pub fn $name(x: Gmem<$t, M, K>, w: Gmem<$t, N, K>, b: Gmem<$t, N>, y: GmemMut<$t, M, N>, act: i32) {
            $($shares)*
            run_scoped(
                collective_axes = [wg],
                // A step is KSUB 64-wide slices of K: RN x 64 of X, and 64 x 64 of W per consumer.
                |x_s: Smem<$t, STAGES, KSUB, RN, 64, Swizzle128>,
                 w_s: Smem<$t, STAGES, KSUB, WN, 64, 64, Swizzle128>,
                 ring: Pipeline<STAGES, COPIES, WN>,
                 $($part)*
                 // Each consumer's 64 biases, copied first (one arrival each).
                 b_s: Smem<$t, WN, 64>,
                 biases: Barrier<WN>,
                 y_s: Smem<$t, WN, 64, RN>| {
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
                            $($exchange)*
                            if rank == 0 {
                                // The 64 x RN block of Y^T: biases along its rows, the activation,
                                // then through shared memory into Y's RN x 64 tile.
                                barrier_wait(biases);
                                let z = acc.load()
                                    + b_s.at(h).load(Layout::WgmmaRow).cast::<f32>().broadcast([64, RN], Layout::Wgmma);
                                // In `Activation::code` order.
                                let out = if act == 1 {
                                    $relu
                                } else if act == 2 {
                                    $gelu
                                } else if act == 3 {
                                    $silu
                                } else {
                                    $none
                                };
                                y_s.at(h).store(out.cast::<$t>());
                                commit_smem();
                                y.tile([ti, WN * tj + h], [RN, 64]).store(y_s.at(h).t().load(Layout::Strided));
                            }
                        });
                    }
                },
            );
        }
    };
}

/// Y = act(X W^T + b) for few tiles: K split over `ways` programs per 128 x 128 tile of Y, each
/// through six stages, their partial products summed as `split_k_text!` (`kernels/src/workspace.rs`)
/// says, each program adding up the 64 x 32 slices of the tile it owns in buffers that take the
/// stages' shared memory after the main loop, then adding their biases (copied while it waits
/// for the others' sums) and applying the activation (chosen at launch, `act`, as in
/// `linear_skinny!`). Any M, N and K, as for `linear!`.
macro_rules! linear_split {
    ($name:ident, $t:ident,
     none = |z| $none:expr, relu = |z| $relu:expr, gelu = |z| $gelu:expr, silu = |z| $silu:expr) => {
        split_k_text!(
            linear_split!(@kernel $name, $t),
            // A 64 x 32 slice of the tile (`sum`, slice `q` of consumer `h`'s rows).
            epilogue = (
                let bias = b_s.slice([32 * q..32 * q + 32]).load(Layout::WgmmaCol);
                let z = sum + bias.cast::<f32>().broadcast([64, 32], Layout::Wgmma);
                // In `Activation::code` order.
                let out = if act == 1 {
                    $relu
                } else if act == 2 {
                    $gelu
                } else if act == 3 {
                    $silu
                } else {
                    $none
                };
                y.tile([2 * ti + h, 4 * tj + q], [64, 32]).store(out.cast::<$t>());
            )
        );
    };
    (@kernel $name:ident, $t:ident, shares = ($($shares:tt)*), exchange = ($($exchange:tt)*)) => {
        #[kernel(grid = (ways * cdiv(M, BM) * cdiv(N, BN),), warpgroups = 3,
                 warpgroup_axis = wg, max_registers = 168, ragged(M, N, K),
                 consts(BM = 128, BN = 128, BK = 64, STAGES = 6, SLOTS = 8, LOADS = 2 * SLOTS))]
        pub fn $name(
            x: Gmem<$t, M, K>,
            w: Gmem<$t, N, K>,
            b: Gmem<$t, N>,
            y: GmemMut<$t, M, N>,
            partial: GmemMut<f32, P, BN>,
            sems: GmemMut<u32, S>,
            ways: i32,
            act: i32,
        ) {
            $($shares)*
            // Each consumer's sum lives through both scopes below (the producer's goes unused).
            run_scoped(|acc: Acc<f32, 64, BN>| {
                run_scoped(
                    collective_axes = [wg],
                    |x_s: Smem<$t, STAGES, 2, 64, BK, Swizzle128>,
                     w_s: Smem<$t, STAGES, BN, BK, Swizzle128>,
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
                     b_s: Smem<$t, BN>,
                     biases: Barrier<1>| {
                        if warpgroup_id() == 0 {
                            copy_gmem_to_smem(b.tile([tj]), b_s, biases);
                        } else {
                            let h = warpgroup_id() - 1;
                            barrier_wait(biases);
                            $($exchange)*
                        }
                    },
                );
            });
        }
    };
}

/// The activations, each an expression of the f32 pre-activation `z`, written once for every
/// kernel of the layer: `activations!(family!(args..))` is `family!(args.. none = .., relu = ..,
/// gelu = .., silu = ..)`. GELU in its tanh form: 0.5 z (1 + tanh(sqrt(2 / pi) (z + 0.044715 z^3))).
macro_rules! activations {
    ($family:ident!($($args:tt)*)) => {
        $family!($($args)*
                 none = |z| z,
                 relu = |z| max(z, 0.0),
                 gelu = |z| 0.5 * z * (1.0 + tanh(z * (0.7978846 + 0.035677407 * z * z))),
                 silu = |z| z * recip(1.0 + exp(-z)));
    };
}

/// The kernels of one element type: for each activation the four tile sizes, 128 x 256,
/// 128 x 192, 128 x 64 and 128 x 128 (overlapped), each carrying only its own activation; and the
/// skinny kernels, which take the activation at launch (`linear_skinny!`).
macro_rules! linear_kernels {
    ($t:ident, none = $none:tt, relu = $relu:tt, gelu = $gelu:tt, silu = $silu:tt, skinny = $skinny:tt,
     none = |z| $a0:expr, relu = |z| $a1:expr, gelu = |z| $a2:expr, silu = |z| $a3:expr) => {
        linear_kernels!(@tiles $t, $none, |z| $a0);
        linear_kernels!(@tiles $t, $relu, |z| $a1);
        linear_kernels!(@tiles $t, $gelu, |z| $a2);
        linear_kernels!(@tiles $t, $silu, |z| $a3);
        linear_kernels!(@skinny $t, $skinny, (none = |z| $a0, relu = |z| $a1, gelu = |z| $a2, silu = |z| $a3));
    };
    (@tiles $t:ident, [$wide:ident, $mid:ident, $narrow:ident, $overlapped:ident], |z| $act:expr) => {
        linear!($wide, $t, BN = 256, STAGES = 3, act = |z| $act);
        linear!($mid, $t, BN = 192, STAGES = 4, act = |z| $act);
        linear!($narrow, $t, BN = 64, STAGES = 8, act = |z| $act);
        linear_overlapped!($overlapped, $t, act = |z| $act);
    };
    // Rows, then one slab per program, two, or K split two or four ways (`waves::Spread`).
    (@skinny $t:ident, [$r16:ident, $r16x2:ident, $r16k2:ident, $r16k4:ident, $r32:ident, $r32x2:ident,
                        $r32k2:ident, $r32k4:ident, $r64:ident, $r64x2:ident, $r64k2:ident, $r64k4:ident], $acts:tt) => {
        linear_skinny!($r16, $t, RN = 16, WARPGROUPS = 2, KSUB = 2, STAGES = 9, SPLIT = 1, acts = $acts);
        linear_skinny!($r16x2, $t, RN = 16, WARPGROUPS = 3, KSUB = 1, STAGES = 10, SPLIT = 1, acts = $acts);
        linear_skinny!($r16k2, $t, RN = 16, WARPGROUPS = 2, KSUB = 2, STAGES = 8, SPLIT = 2, acts = $acts);
        linear_skinny!($r16k4, $t, RN = 16, WARPGROUPS = 2, KSUB = 2, STAGES = 8, SPLIT = 4, acts = $acts);
        linear_skinny!($r32, $t, RN = 32, WARPGROUPS = 2, KSUB = 2, STAGES = 7, SPLIT = 1, acts = $acts);
        linear_skinny!($r32x2, $t, RN = 32, WARPGROUPS = 3, KSUB = 1, STAGES = 10, SPLIT = 1, acts = $acts);
        linear_skinny!($r32k2, $t, RN = 32, WARPGROUPS = 2, KSUB = 2, STAGES = 6, SPLIT = 2, acts = $acts);
        linear_skinny!($r32k4, $t, RN = 32, WARPGROUPS = 2, KSUB = 2, STAGES = 6, SPLIT = 4, acts = $acts);
        linear_skinny!($r64, $t, RN = 64, WARPGROUPS = 2, KSUB = 2, STAGES = 6, SPLIT = 1, acts = $acts);
        linear_skinny!($r64x2, $t, RN = 64, WARPGROUPS = 3, KSUB = 1, STAGES = 8, SPLIT = 1, acts = $acts);
        linear_skinny!($r64k2, $t, RN = 64, WARPGROUPS = 2, KSUB = 2, STAGES = 6, SPLIT = 2, acts = $acts);
        linear_skinny!($r64k4, $t, RN = 64, WARPGROUPS = 2, KSUB = 2, STAGES = 6, SPLIT = 4, acts = $acts);
    };
}

activations!(linear_split!(linear_bf16_split, bf16,));
activations!(linear_split!(linear_f16_split, f16,));
activations!(linear_kernels!(
    bf16,
    none = [linear_none_bf16, linear_none_bf16_n192, linear_none_bf16_n64, linear_none_bf16_overlapped],
    relu = [linear_relu_bf16, linear_relu_bf16_n192, linear_relu_bf16_n64, linear_relu_bf16_overlapped],
    gelu = [linear_gelu_bf16, linear_gelu_bf16_n192, linear_gelu_bf16_n64, linear_gelu_bf16_overlapped],
    silu = [linear_silu_bf16, linear_silu_bf16_n192, linear_silu_bf16_n64, linear_silu_bf16_overlapped],
    skinny = [
        linear_bf16_skinny16,
        linear_bf16_skinny16x2,
        linear_bf16_skinny16k2,
        linear_bf16_skinny16k4,
        linear_bf16_skinny32,
        linear_bf16_skinny32x2,
        linear_bf16_skinny32k2,
        linear_bf16_skinny32k4,
        linear_bf16_skinny64,
        linear_bf16_skinny64x2,
        linear_bf16_skinny64k2,
        linear_bf16_skinny64k4
    ],
));
activations!(linear_kernels!(
    f16,
    none = [linear_none_f16, linear_none_f16_n192, linear_none_f16_n64, linear_none_f16_overlapped],
    relu = [linear_relu_f16, linear_relu_f16_n192, linear_relu_f16_n64, linear_relu_f16_overlapped],
    gelu = [linear_gelu_f16, linear_gelu_f16_n192, linear_gelu_f16_n64, linear_gelu_f16_overlapped],
    silu = [linear_silu_f16, linear_silu_f16_n192, linear_silu_f16_n64, linear_silu_f16_overlapped],
    skinny = [
        linear_f16_skinny16,
        linear_f16_skinny16x2,
        linear_f16_skinny16k2,
        linear_f16_skinny16k4,
        linear_f16_skinny32,
        linear_f16_skinny32x2,
        linear_f16_skinny32k2,
        linear_f16_skinny32k4,
        linear_f16_skinny64,
        linear_f16_skinny64x2,
        linear_f16_skinny64k2,
        linear_f16_skinny64k4
    ],
));

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

/// The kernels for one element type, by [`Variant`] and activation: a launch and an
/// interpretation that pick the kernel for the shape (`kernels/src/waves.rs`), and a launch and an
/// interpretation of a given kernel (for tuning and tests).
macro_rules! linear_fns {
    ($launch:ident, $launch_variant:ident, $interpret:ident, $interpret_variant:ident, $t:ident,
     split = $split:ident,
     $($variant:ident => [$none:ident, $relu:ident, $gelu:ident, $silu:ident]),*;
     skinny: $(($rows:ident, $spread:ident) => $skinny:ident),*) => {
        /// Y = act(X W^T + b) on the GPU, with the kernel for this shape.
        pub fn $launch(
            stream: &impl tessel::AsStream,
            x: &DeviceTensor<$t>,
            w: &DeviceTensor<$t>,
            b: &DeviceTensor<$t>,
            y: &mut DeviceTensor<$t>,
            act: Activation,
        ) -> tessel::Result<()> {
            $launch_variant(variant(x.shape(), w.shape()), stream, x, w, b, y, act)
        }

        /// Y = act(X W^T + b) on the GPU with kernel `v`.
        pub fn $launch_variant(
            v: Variant,
            stream: &impl tessel::AsStream,
            x: &DeviceTensor<$t>,
            w: &DeviceTensor<$t>,
            b: &DeviceTensor<$t>,
            y: &mut DeviceTensor<$t>,
            act: Activation,
        ) -> tessel::Result<()> {
            match (v, act) {
                (Variant::Split(ways), act) => {
                    let (m, n) = (dim(x.shape(), 0), dim(w.shape(), 0));
                    Workspace::<f32>::on_device(stream, m, n, ways, |partial, sems, ways| {
                        $split::launch(stream, x, w, b, y, partial, sems, ways, act.code())
                    })
                }
                $(
                    (Variant::$variant, Activation::None) => $none::launch(stream, x, w, b, y),
                    (Variant::$variant, Activation::Relu) => $relu::launch(stream, x, w, b, y),
                    (Variant::$variant, Activation::Gelu) => $gelu::launch(stream, x, w, b, y),
                    (Variant::$variant, Activation::Silu) => $silu::launch(stream, x, w, b, y),
                )*
                $(
                    (Variant::Skinny(Rows::$rows, Spread::$spread), act) => $skinny::launch(stream, x, w, b, y, act.code()),
                )*
            }
        }

        /// Y = act(X W^T + b) in the interpreter, with the kernel the GPU would run.
        pub fn $interpret(
            x: &HostTensor<$t>,
            w: &HostTensor<$t>,
            b: &HostTensor<$t>,
            y: &mut HostTensor<$t>,
            act: Activation,
        ) -> tessel::Result<()> {
            $interpret_variant(variant(x.shape(), w.shape()), x, w, b, y, act)
        }

        /// Y = act(X W^T + b) in the interpreter with kernel `v`.
        pub fn $interpret_variant(
            v: Variant,
            x: &HostTensor<$t>,
            w: &HostTensor<$t>,
            b: &HostTensor<$t>,
            y: &mut HostTensor<$t>,
            act: Activation,
        ) -> tessel::Result<()> {
            match (v, act) {
                (Variant::Split(ways), act) => {
                    let (m, n) = (dim(x.shape(), 0), dim(w.shape(), 0));
                    Workspace::<f32>::on_host(m, n, ways, |partial, sems, ways| {
                        $split::interpret(x, w, b, y, partial, sems, ways, act.code())
                    })
                }
                $(
                    (Variant::$variant, Activation::None) => $none::interpret(x, w, b, y),
                    (Variant::$variant, Activation::Relu) => $relu::interpret(x, w, b, y),
                    (Variant::$variant, Activation::Gelu) => $gelu::interpret(x, w, b, y),
                    (Variant::$variant, Activation::Silu) => $silu::interpret(x, w, b, y),
                )*
                $(
                    (Variant::Skinny(Rows::$rows, Spread::$spread), act) => $skinny::interpret(x, w, b, y, act.code()),
                )*
            }
        }
    };
}

linear_fns!(linear_bf16, linear_bf16_variant, interpret_linear_bf16, interpret_linear_bf16_variant, bf16,
            split = linear_bf16_split,
            Wide => [linear_none_bf16, linear_relu_bf16, linear_gelu_bf16, linear_silu_bf16],
            Mid => [linear_none_bf16_n192, linear_relu_bf16_n192, linear_gelu_bf16_n192, linear_silu_bf16_n192],
            Overlapped => [linear_none_bf16_overlapped, linear_relu_bf16_overlapped, linear_gelu_bf16_overlapped,
                           linear_silu_bf16_overlapped],
            Narrow => [linear_none_bf16_n64, linear_relu_bf16_n64, linear_gelu_bf16_n64, linear_silu_bf16_n64];
            skinny: (R16, One) => linear_bf16_skinny16,
                    (R16, Two) => linear_bf16_skinny16x2,
                    (R16, SplitK2) => linear_bf16_skinny16k2,
                    (R16, SplitK4) => linear_bf16_skinny16k4,
                    (R32, One) => linear_bf16_skinny32,
                    (R32, Two) => linear_bf16_skinny32x2,
                    (R32, SplitK2) => linear_bf16_skinny32k2,
                    (R32, SplitK4) => linear_bf16_skinny32k4,
                    (R64, One) => linear_bf16_skinny64,
                    (R64, Two) => linear_bf16_skinny64x2,
                    (R64, SplitK2) => linear_bf16_skinny64k2,
                    (R64, SplitK4) => linear_bf16_skinny64k4);
linear_fns!(linear_f16, linear_f16_variant, interpret_linear_f16, interpret_linear_f16_variant, f16,
            split = linear_f16_split,
            Wide => [linear_none_f16, linear_relu_f16, linear_gelu_f16, linear_silu_f16],
            Mid => [linear_none_f16_n192, linear_relu_f16_n192, linear_gelu_f16_n192, linear_silu_f16_n192],
            Overlapped => [linear_none_f16_overlapped, linear_relu_f16_overlapped, linear_gelu_f16_overlapped,
                           linear_silu_f16_overlapped],
            Narrow => [linear_none_f16_n64, linear_relu_f16_n64, linear_gelu_f16_n64, linear_silu_f16_n64];
            skinny: (R16, One) => linear_f16_skinny16,
                    (R16, Two) => linear_f16_skinny16x2,
                    (R16, SplitK2) => linear_f16_skinny16k2,
                    (R16, SplitK4) => linear_f16_skinny16k4,
                    (R32, One) => linear_f16_skinny32,
                    (R32, Two) => linear_f16_skinny32x2,
                    (R32, SplitK2) => linear_f16_skinny32k2,
                    (R32, SplitK4) => linear_f16_skinny32k4,
                    (R64, One) => linear_f16_skinny64,
                    (R64, Two) => linear_f16_skinny64x2,
                    (R64, SplitK2) => linear_f16_skinny64k2,
                    (R64, SplitK4) => linear_f16_skinny64k4);

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

/// Every instantiation's name and PTX (for `ptxas` checks and `TESSEL_DUMP_PTX`).
pub const ALL_PTX: &[(&str, &str)] = &[
    ("linear_bf16_split", linear_bf16_split::PTX),
    ("linear_f16_split", linear_f16_split::PTX),
    ("linear_none_bf16", linear_none_bf16::PTX),
    ("linear_none_bf16_n192", linear_none_bf16_n192::PTX),
    ("linear_relu_bf16", linear_relu_bf16::PTX),
    ("linear_relu_bf16_n192", linear_relu_bf16_n192::PTX),
    ("linear_gelu_bf16", linear_gelu_bf16::PTX),
    ("linear_gelu_bf16_n192", linear_gelu_bf16_n192::PTX),
    ("linear_silu_bf16", linear_silu_bf16::PTX),
    ("linear_silu_bf16_n192", linear_silu_bf16_n192::PTX),
    ("linear_none_bf16_n64", linear_none_bf16_n64::PTX),
    ("linear_relu_bf16_n64", linear_relu_bf16_n64::PTX),
    ("linear_gelu_bf16_n64", linear_gelu_bf16_n64::PTX),
    ("linear_silu_bf16_n64", linear_silu_bf16_n64::PTX),
    ("linear_none_bf16_overlapped", linear_none_bf16_overlapped::PTX),
    ("linear_relu_bf16_overlapped", linear_relu_bf16_overlapped::PTX),
    ("linear_gelu_bf16_overlapped", linear_gelu_bf16_overlapped::PTX),
    ("linear_silu_bf16_overlapped", linear_silu_bf16_overlapped::PTX),
    ("linear_none_f16", linear_none_f16::PTX),
    ("linear_none_f16_n192", linear_none_f16_n192::PTX),
    ("linear_relu_f16", linear_relu_f16::PTX),
    ("linear_relu_f16_n192", linear_relu_f16_n192::PTX),
    ("linear_gelu_f16", linear_gelu_f16::PTX),
    ("linear_gelu_f16_n192", linear_gelu_f16_n192::PTX),
    ("linear_silu_f16", linear_silu_f16::PTX),
    ("linear_silu_f16_n192", linear_silu_f16_n192::PTX),
    ("linear_none_f16_n64", linear_none_f16_n64::PTX),
    ("linear_relu_f16_n64", linear_relu_f16_n64::PTX),
    ("linear_gelu_f16_n64", linear_gelu_f16_n64::PTX),
    ("linear_silu_f16_n64", linear_silu_f16_n64::PTX),
    ("linear_none_f16_overlapped", linear_none_f16_overlapped::PTX),
    ("linear_relu_f16_overlapped", linear_relu_f16_overlapped::PTX),
    ("linear_gelu_f16_overlapped", linear_gelu_f16_overlapped::PTX),
    ("linear_silu_f16_overlapped", linear_silu_f16_overlapped::PTX),
    ("linear_bf16_skinny16", linear_bf16_skinny16::PTX),
    ("linear_bf16_skinny16x2", linear_bf16_skinny16x2::PTX),
    ("linear_bf16_skinny16k2", linear_bf16_skinny16k2::PTX),
    ("linear_bf16_skinny16k4", linear_bf16_skinny16k4::PTX),
    ("linear_bf16_skinny32", linear_bf16_skinny32::PTX),
    ("linear_bf16_skinny32x2", linear_bf16_skinny32x2::PTX),
    ("linear_bf16_skinny32k2", linear_bf16_skinny32k2::PTX),
    ("linear_bf16_skinny32k4", linear_bf16_skinny32k4::PTX),
    ("linear_bf16_skinny64", linear_bf16_skinny64::PTX),
    ("linear_bf16_skinny64x2", linear_bf16_skinny64x2::PTX),
    ("linear_bf16_skinny64k2", linear_bf16_skinny64k2::PTX),
    ("linear_bf16_skinny64k4", linear_bf16_skinny64k4::PTX),
    ("linear_f16_skinny16", linear_f16_skinny16::PTX),
    ("linear_f16_skinny16x2", linear_f16_skinny16x2::PTX),
    ("linear_f16_skinny16k2", linear_f16_skinny16k2::PTX),
    ("linear_f16_skinny16k4", linear_f16_skinny16k4::PTX),
    ("linear_f16_skinny32", linear_f16_skinny32::PTX),
    ("linear_f16_skinny32x2", linear_f16_skinny32x2::PTX),
    ("linear_f16_skinny32k2", linear_f16_skinny32k2::PTX),
    ("linear_f16_skinny32k4", linear_f16_skinny32k4::PTX),
    ("linear_f16_skinny64", linear_f16_skinny64::PTX),
    ("linear_f16_skinny64x2", linear_f16_skinny64x2::PTX),
    ("linear_f16_skinny64k2", linear_f16_skinny64k2::PTX),
    ("linear_f16_skinny64k4", linear_f16_skinny64k4::PTX),
];
