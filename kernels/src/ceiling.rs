//! What the tensor cores alone allow `matmul!`'s wide tiles: an upper bound, not a GEMM.
//!
//! `ceiling!` issues exactly the wgmmas of `matmul!` with 128 x 256 tiles (each program the same
//! tiles, each consumer one m64n256k16 chain of K / 16 per tile, reading both operands from shared
//! memory as the GEMM does) and nothing else: no loads after the first STAGES slices, no stores but
//! one tile. Its operands are real data (the first STAGES K slices of A and B for the program's
//! first tile, taken in turn), so the tensor cores switch as many bits as in the GEMM, and each SM
//! works on its own data, as in the GEMM (not all on the same bits at once). Timed beside cuBLAS in
//! the same rounds (`BENCH_CEILING=1 bench_matmul`), it says how far any kernel built on these
//! wgmmas could get on this card under the same load: whatever the GEMM spends on moving data
//! comes on top.
//!
//! What it computes, so that a test can check it did all that work: program p, whose tiles are
//! p, p + programs, .., stores at its last tile the sum over k < K / 64 of A[rows of tile p,
//! slice k % STAGES] @ B[slice k % STAGES, columns of tile p], where slice s is columns (rows of B)
//! 64 s .. 64 s + 64. The rest of C is left as it was.

use tessel::prelude::*;

/// The wide GEMM's wgmmas over real operands, nothing else (module doc); `$t` is bf16 or f16.
/// `PROGRAMS` (default 132, one per SM, as the GEMM) lets a test give each program several tiles.
#[macro_export]
macro_rules! ceiling {
    ($name:ident, $t:ident) => {
        $crate::ceiling!($name, $t, PROGRAMS = 132);
    };
    ($name:ident, $t:ident, PROGRAMS = $programs:literal) => {
        #[kernel(grid = ($programs,), warpgroups = 3, warpgroup_axis = wg, max_registers = 168,
                                         consts(BM = 128, BN = 256, CN = 128, BK = 64, STAGES = 4), ragged(M, N, K))]
        pub fn $name(a: Gmem<$t, M, K>, b: Gmem<$t, K, N>, c: GmemMut<$t, M, N>) {
            let (tile_cols, steps) = (cdiv(N, BN), cdiv(K, BK));
            let (p, programs) = (program_id(0), num_programs(0));
            let mine = (cdiv(M, BM) * tile_cols - p + programs - 1) / programs;
            run_scoped(
                collective_axes = [wg],
                |a_s: Smem<$t, STAGES, 2, 64, BK, Swizzle128>,
                 b_s: Smem<$t, STAGES, BK, BN, Swizzle128>,
                 c_s: Smem<$t, 2, 64, CN, Swizzle128>,
                 // Three copies per stage, all loaded once.
                 loaded: Barrier<12>| {
                    if warpgroup_id() == 0 {
                        set_max_registers(40);
                        // The first tile's slices (a program without tiles loads zeros).
                        let (ti, tj) = (p / tile_cols, p % tile_cols);
                        #[unroll]
                        for s in 0..STAGES {
                            copy_gmem_to_smem(a.tile([2 * ti, s]), a_s.at(s).at(0), loaded);
                            copy_gmem_to_smem(a.tile([2 * ti + 1, s]), a_s.at(s).at(1), loaded);
                            copy_gmem_to_smem(b.tile([s, tj]), b_s.at(s), loaded);
                        }
                    } else {
                        set_max_registers(232);
                        let h = warpgroup_id() - 1;
                        barrier_wait(loaded);
                        run_scoped(|acc: Acc<f32, 64, BN>| {
                            for _t in 0..mine {
                                for k in 0..steps {
                                    wgmma(acc, a_s.at(k % STAGES).at(h), b_s.at(k % STAGES), accumulate = k > 0);
                                    // As the GEMM's consumers, which wait for each step's wgmmas to
                                    // release its stage.
                                    wgmma_wait(0);
                                }
                            }
                            // The last tile's result, so that the work has an observable result.
                            let last = p + (mine - 1) * programs;
                            #[unroll]
                            for q in 0..BN / CN {
                                if mine > 0 {
                                    wait_smem_to_gmem(0);
                                    c_s.at(h).store(acc.slice([.., CN * q..CN * q + CN]).load().cast::<$t>());
                                    commit_smem();
                                    copy_smem_to_gmem(
                                        c_s.at(h),
                                        c.tile([2 * (last / tile_cols) + h, (BN / CN) * (last % tile_cols) + q]),
                                    );
                                }
                            }
                        });
                    }
                },
            );
        }
    };
}

ceiling!(ceiling_bf16, bf16);
ceiling!(ceiling_f16, f16);

/// Every instantiation's name and PTX (for `ptxas` checks).
pub const ALL_PTX: &[(&str, &str)] = &[("ceiling_bf16", ceiling_bf16::PTX), ("ceiling_f16", ceiling_f16::PTX)];
