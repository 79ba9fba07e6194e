//! The persistent, warp-specialized GEMM of `examples/matmul.rs` and `examples/bench_matmul.rs`.
//!
//! One program per SM walks over 128 x BN tiles of C in an L2-friendly order. Warpgroup 0 is the
//! producer: it streams 128 x 64 slices of A and 64 x BN slices of B through a ring of shared-memory
//! stages with TMA (a `Pipeline`). Warpgroups 1 and 2 are consumers: each multiplies its 64 rows
//! of the A slice by the B slice (m64nBNk16 wgmmas) and releases the stage as soon as its wgmmas
//! have read it (the other consumer's keep the tensor cores busy), then writes its 64 x BN half of
//! C through shared memory (`stmatrix`) with a TMA store that runs on during the next tile.
//!
//! For skinny outputs, where 128 x 256 tiles would leave most SMs idle, `split_k!` splits K
//! instead: a 2 x 1 cluster computes one 128 x 128 tile, each program half of K, and the second
//! program sends its f32 partial product into the first one's shared memory (`copy_smem_to_peer`),
//! which adds it and stores the tile.
//!
//! One kernel text (`matmul!`), two ways of placing programs:
//! - `single`: no clusters;
//! - `pair`: 2 x 1 clusters compute two tiles stacked along M, which share their B slices: each
//!   program loads half of every B slice and multicasts it to both, and releases each stage in
//!   both programs.

use tessel::prelude::*;

/// C = A @ B with f32 accumulation, A M x K and B K x N row-major, C in the element type `$t`,
/// 128 x BN tiles. M must be a multiple of 128 (256 for `pair`), N of BN and K of 64.
macro_rules! matmul {
    (single, $name:ident, $t:ident, BN = $bn:literal, STAGES = $stages:literal) => {
        matmul!(@kernel $name, $t, $bn, $stages, cluster = 1, units = (M / BM, N / BN),
                tile = (ur, uc), b_copy = (), releases = 2, release = ());
    };
    (pair, $name:ident, $t:ident, BN = $bn:literal, STAGES = $stages:literal) => {
        matmul!(@kernel $name, $t, $bn, $stages, cluster = 2, units = (M / (2 * BM), N / BN),
                tile = (2 * ur + cluster_rank(), uc), b_copy = (, multicast = true),
                releases = 4, release = (, cluster = true));
    };
    (@kernel $name:ident, $t:ident, $bn:literal, $stages:literal, cluster = $cluster:literal,
     units = ($rows:expr, $cols:expr), tile = ($ti:expr, $tj:expr), b_copy = ($($b_flag:tt)*),
     releases = $releases:literal, release = ($($release:tt)*)) => {
        #[kernel(grid = (132,), cluster = ($cluster,), warpgroups = 3, warpgroup_axis = wg, max_registers = 168,
                 consts(BM = 128, BN = $bn, BK = 64, STAGES = $stages, GROUP = 8))]
        pub fn $name(a: Gmem<$t, M, K>, b: Gmem<$t, K, N>, c: GmemMut<$t, M, N>) {
            // Work units (a tile, or a cluster's pair of tiles): cluster `cl` takes every `clusters`-th.
            let (unit_rows, unit_cols, steps) = ($rows, $cols, K / BK);
            let (cl, clusters) = (program_id(0) / $cluster, num_programs(0) / $cluster);
            let units = unit_rows * unit_cols;
            run_scoped(
                collective_axes = [wg],
                |a_s: Smem<$t, STAGES, 2, 64, BK, Swizzle128>,
                 b_s: Smem<$t, STAGES, BK, BN, Swizzle128>,
                 c_s: Smem<$t, 2, 64, BN, Swizzle128>,
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
                            for t in 0..(units - cl + clusters - 1) / clusters {
                                let u = cl + t * clusters;
                                let first = u / (GROUP * unit_cols) * GROUP;
                                let rows = min(unit_rows - first, GROUP);
                                let (ur, uc) = (first + u % (GROUP * unit_cols) % rows, u % (GROUP * unit_cols) / rows);
                                let (ti, tj) = ($ti, $tj);
                                // The tile's first step overwrites the accumulator (no zeroing).
                                pipeline_consume(ring, steps, |k, s| {
                                    wgmma(acc, a_s.at(s).at(h), b_s.at(s), accumulate = k > 0);
                                } $($release)*);
                                // The previous tile's store must have read c_s before it is rewritten.
                                wait_smem_to_gmem(0);
                                c_s.at(h).store(acc.load().cast::<$t>());
                                commit_smem();
                                copy_smem_to_gmem(c_s.at(h), c.tile([2 * ti + h, tj]));
                            }
                        });
                    }
                },
            );
        }
    };
}

/// C = A @ B for skinny shapes: one 2 x 1 cluster per 128 x 128 tile of C, each program
/// multiplying half of K. M and N must be multiples of 128, K of 128 (two halves of 64-wide steps).
macro_rules! split_k {
    ($name:ident, $t:ident) => {
        #[kernel(grid = (2 * (M / BM) * (N / BN),), cluster = (2,), warpgroups = 3, warpgroup_axis = wg,
                                                 max_registers = 168, consts(BM = 128, BN = 128, BK = 64, STAGES = 4))]
        pub fn $name(a: Gmem<$t, M, K>, b: Gmem<$t, K, N>, c: GmemMut<$t, M, N>) {
            let (half, unit, steps) = (cluster_rank(), program_id(0) / 2, K / BK / 2);
            let (ti, tj) = (unit / (N / BN), unit % (N / BN));
            run_scoped(
                collective_axes = [wg],
                |a_s: Smem<$t, STAGES, 2, 64, BK, Swizzle128>,
                 b_s: Smem<$t, STAGES, BK, BN, Swizzle128>,
                 ring: Pipeline<STAGES, 3, 2>,
                 // Program 1's partial products land in program 0's `part` (one copy per consumer).
                 part: Smem<f32, 2, 64, BN, Swizzle128>,
                 received: Barrier<2>,
                 c_s: Smem<$t, 2, 64, BN, Swizzle128>| {
                    if warpgroup_id() == 0 {
                        set_max_registers(40);
                        pipeline_produce(ring, steps, |k, s, bar| {
                            let kk = half * steps + k;
                            copy_gmem_to_smem(a.tile([2 * ti, kk]), a_s.at(s).at(0), bar);
                            copy_gmem_to_smem(a.tile([2 * ti + 1, kk]), a_s.at(s).at(1), bar);
                            copy_gmem_to_smem(b.tile([kk, tj]), b_s.at(s), bar);
                        });
                    } else {
                        set_max_registers(232);
                        let h = warpgroup_id() - 1;
                        run_scoped(|acc: Acc<f32, 64, BN>| {
                            pipeline_consume(ring, steps, |k, s| {
                                wgmma(acc, a_s.at(s).at(h), b_s.at(s));
                            });
                            if half == 1 {
                                part.at(h).store(acc.load());
                                commit_smem();
                                copy_smem_to_peer(part.at(h), part.at(h), received, 0);
                            } else {
                                barrier_wait(received);
                                let sum = acc.load() + part.at(h).load(Layout::Wgmma);
                                c_s.at(h).store(sum.cast::<$t>());
                                commit_smem();
                                copy_smem_to_gmem(c_s.at(h), c.tile([2 * ti + h, tj]));
                            }
                        });
                    }
                },
            );
        }
    };
}

matmul!(single, matmul_bf16, bf16, BN = 256, STAGES = 3);
matmul!(single, matmul_f16, f16, BN = 256, STAGES = 3);
matmul!(pair, matmul_bf16_2x1, bf16, BN = 256, STAGES = 3);
matmul!(pair, matmul_f16_2x1, f16, BN = 256, STAGES = 3);
matmul!(single, matmul_bf16_n64, bf16, BN = 64, STAGES = 8);
matmul!(single, matmul_f16_n64, f16, BN = 64, STAGES = 8);
split_k!(matmul_bf16_split, bf16);
split_k!(matmul_f16_split, f16);

/// Picks the variant for a shape (see [`variant`]): one function launches it on the GPU, one runs
/// it in the interpreter.
macro_rules! dispatch {
    ($launch:ident, $interpret:ident, $t:ident, $($variant:ident => $kernel:ident),*) => {
        /// C = A @ B on the GPU with the variant for this shape.
        pub fn $launch(
            stream: &impl tessel::AsStream,
            a: &DeviceTensor<$t>,
            b: &DeviceTensor<$t>,
            c: &mut DeviceTensor<$t>,
        ) -> tessel::Result<()> {
            let v = variant(a.shape()[0], b.shape()[1], a.shape()[1]);
            whole_tiles(v, a.shape()[0], a.shape()[1])?;
            match v {
                $(Variant::$variant => $kernel::launch(stream, a, b, c),)*
            }
        }

        /// C = A @ B in the interpreter, with the variant the GPU would run.
        pub fn $interpret(a: &HostTensor<$t>, b: &HostTensor<$t>, c: &mut HostTensor<$t>) -> tessel::Result<()> {
            let v = variant(a.shape()[0], b.shape()[1], a.shape()[1]);
            whole_tiles(v, a.shape()[0], a.shape()[1])?;
            match v {
                $(Variant::$variant => $kernel::interpret(a, b, c),)*
            }
        }
    };
}

dispatch!(matmul_bf16_any, interpret_bf16_any, bf16, Wide => matmul_bf16, Pair => matmul_bf16_2x1, Narrow => matmul_bf16_n64, Split => matmul_bf16_split);
dispatch!(matmul_f16_any, interpret_f16_any, f16, Wide => matmul_f16, Pair => matmul_f16_2x1, Narrow => matmul_f16_n64, Split => matmul_f16_split);

/// The kernel variants `dispatch!` chooses from.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Variant {
    /// 128 x 256 tiles, no clusters.
    Wide,
    /// 128 x 256 tiles, 2 x 1 clusters sharing B.
    Pair,
    /// 128 x 64 tiles with eight stages: for a skinny M, where wide tiles leave most SMs idle.
    Narrow,
    /// 128 x 128 tiles, K split between the two programs of a 2 x 1 cluster: for a skinny M.
    Split,
}

/// The variant for C = A @ B with A M x K and B K x N: `TESSEL_MATMUL=wide|pair|narrow|split`
/// overrides the choice (for tuning). Otherwise wide tiles, unless they would leave more than half
/// the 132 SMs idle: then split K across 2 x 1 clusters of 128 x 128 tiles when those fill at most
/// the 132 SMs and the shape divides into them, else narrow tiles. (`Pair` measured the same as
/// `Wide` on the H200 under a sustained load, within a percent either way, and up to 1.5% slower
/// with the GPU idle between launches: the multicast saves L2 bandwidth these shapes do not lack.)
pub fn variant(m: usize, n: usize, k: usize) -> Variant {
    match std::env::var("TESSEL_MATMUL").ok().as_deref() {
        Some("wide") => Variant::Wide,
        Some("pair") => Variant::Pair,
        Some("narrow") => Variant::Narrow,
        Some("split") => Variant::Split,
        _ => choose(m, n, k),
    }
}

/// The variant for a shape, without the override.
pub fn choose(m: usize, n: usize, k: usize) -> Variant {
    let split_fits = m % 128 == 0 && n % 128 == 0 && k % 128 == 0 && 2 * (m / 128) * (n / 128) <= 132;
    match m.div_ceil(128) * n.div_ceil(256) {
        wide if wide >= 66 => Variant::Wide,
        _ if split_fits => Variant::Split,
        _ => Variant::Narrow,
    }
}

/// The launch checks the tiles' divisibility of N and K, and of M by 64 (the TMA boxes). A program
/// computes whole 128-row tiles (pairs of them for `Pair`), and `Split` gives each program of a
/// cluster the same number of 64-wide steps of K: these the launch cannot see, so they are checked here.
pub fn whole_tiles(v: Variant, m: usize, k: usize) -> tessel::Result<()> {
    let rows = if v == Variant::Pair { 256 } else { 128 };
    if m % rows != 0 {
        let why = "a program computes whole 128-row tiles of C (pairs of them in a 2 x 1 cluster)";
        return Err(tessel::Error::Divisibility { dim: "M", value: m, divisor: rows, why });
    }
    if v == Variant::Split && k % 128 != 0 {
        let why = "the two programs of a cluster each take half of K's 64-wide steps";
        return Err(tessel::Error::Divisibility { dim: "K", value: k, divisor: 128, why });
    }
    Ok(())
}

/// Every instantiation's name and PTX (for `ptxas` checks and `TESSEL_DUMP_PTX`).
pub const ALL_PTX: &[(&str, &str)] = &[
    ("matmul_bf16", matmul_bf16::PTX),
    ("matmul_f16", matmul_f16::PTX),
    ("matmul_bf16_2x1", matmul_bf16_2x1::PTX),
    ("matmul_f16_2x1", matmul_f16_2x1::PTX),
    ("matmul_bf16_n64", matmul_bf16_n64::PTX),
    ("matmul_f16_n64", matmul_f16_n64::PTX),
    ("matmul_bf16_split", matmul_bf16_split::PTX),
    ("matmul_f16_split", matmul_f16_split::PTX),
];
