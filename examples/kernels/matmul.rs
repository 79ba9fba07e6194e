//! The persistent, warp-specialized GEMM of `examples/matmul.rs` and `examples/bench_matmul.rs`.
//!
//! One program per SM walks over 128 x 256 tiles of C in an L2-friendly order. Warpgroup 0 is the
//! producer: it streams 128 x 64 slices of A and 64 x 256 slices of B through a three-stage ring of
//! shared-memory buffers with TMA. Warpgroups 1 and 2 are consumers: each multiplies its 64 rows of
//! the A slice by the B slice (four m64n256k16 wgmmas per stage), keeps one wgmma group in flight,
//! releases stages as soon as the tensor cores are done with them, and writes its 64 x 256 half of C
//! through shared memory with a TMA store that overlaps the next tile's main loop.

use tessel::prelude::*;

/// Defines the kernel for one element type: C = A @ B with f32 accumulation, A M x K and B K x N
/// row-major, C in the same element type, `BN` columns per tile and `STAGES` pipeline stages. M must be a
/// multiple of 128, N of BN and K of 64. 128 x 256 tiles with three stages measured fastest on the
/// H200 (753 TFLOP/s bf16 at 8192^3, wall clock, against 661 for 128 x 128 tiles with five stages).
macro_rules! persistent_matmul {
    ($name:ident, $t:ident, BN = $bn:literal, STAGES = $stages:literal) => {
        #[kernel(grid = (132,), warpgroups = 3, warpgroup_axis = wg, max_registers = 168,
                                                     consts(BM = 128, BN = $bn, BK = 64, STAGES = $stages, GROUP = 8))]
        pub fn $name(a: Gmem<$t, M, K>, b: Gmem<$t, K, N>, c: GmemMut<$t, M, N>) {
            let tiles_m = M / BM;
            let tiles_n = N / BN;
            let tiles = tiles_m * tiles_n;
            let steps = K / BK;
            run_scoped(
                collective_axes = [wg],
                |a_s: Smem<$t, STAGES, 2, 64, BK, Swizzle128>,
                 b_s: Smem<$t, STAGES, BK, BN, Swizzle128>,
                 c_s: Smem<$t, 2, 64, BN, Swizzle128>,
                 full: Barrier<3, STAGES>,
                 empty: Barrier<2, STAGES>| {
                    if warpgroup_id() == 0 {
                        // Producer: fill the ring, waiting for a stage to be released before refilling it.
                        set_max_registers(40);
                        let mut it = 0;
                        for t in 0..(tiles - program_id(0) + num_programs(0) - 1) / num_programs(0) {
                            let tile = program_id(0) + t * num_programs(0);
                            // L2-friendly order: GROUP tile-rows at a time, walking down each column.
                            let first = tile / (GROUP * tiles_n) * GROUP;
                            let rows = min(tiles_m - first, GROUP);
                            let ti = first + tile % (GROUP * tiles_n) % rows;
                            let tj = tile % (GROUP * tiles_n) / rows;
                            for k in 0..steps {
                                let s = it % STAGES;
                                if it >= STAGES {
                                    barrier_wait(empty.at(s));
                                }
                                copy_gmem_to_smem(a.tile([2 * ti, k]), a_s.at(s).at(0), full.at(s));
                                copy_gmem_to_smem(a.tile([2 * ti + 1, k]), a_s.at(s).at(1), full.at(s));
                                copy_gmem_to_smem(b.tile([k, tj]), b_s.at(s), full.at(s));
                                it = it + 1;
                            }
                        }
                    } else {
                        // Consumers: 64 rows each.
                        set_max_registers(232);
                        let h = warpgroup_id() - 1;
                        run_scoped(|acc: Acc<f32, 64, BN>| {
                            let mut it = 0;
                            for t in 0..(tiles - program_id(0) + num_programs(0) - 1) / num_programs(0) {
                                let tile = program_id(0) + t * num_programs(0);
                                let first = tile / (GROUP * tiles_n) * GROUP;
                                let rows = min(tiles_m - first, GROUP);
                                let ti = first + tile % (GROUP * tiles_n) % rows;
                                let tj = tile % (GROUP * tiles_n) / rows;
                                acc.store(splat::<f32>(0.0, [64, BN]));
                                for k in 0..steps {
                                    let s = it % STAGES;
                                    barrier_wait(full.at(s));
                                    wgmma(acc, a_s.at(s).at(h), b_s.at(s));
                                    wgmma_wait(1);
                                    if k > 0 {
                                        barrier_arrive(empty.at((it + STAGES - 1) % STAGES));
                                    }
                                    it = it + 1;
                                }
                                wgmma_wait(0);
                                barrier_arrive(empty.at((it + STAGES - 1) % STAGES));
                                // Epilogue: the previous tile's store must have read c_s before it is rewritten.
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

persistent_matmul!(matmul_bf16, bf16, BN = 256, STAGES = 3);
persistent_matmul!(matmul_f16, f16, BN = 256, STAGES = 3);
