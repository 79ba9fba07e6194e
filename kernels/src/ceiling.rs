//! What the tensor cores alone allow the wide tiles of `matmul` (`kernels/src/matmul.rs`): an upper
//! bound, not a GEMM.
//!
//! `ceiling` issues exactly the wgmmas of `matmul` with 128 x 256 tiles (each program the same
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

/// The wide GEMM's wgmmas over real operands, nothing else (module doc), for bf16 and f16 with
/// one program per SM, as the GEMM; `ceiling::<bf16, 3>` gives each of 3 programs several tiles,
/// for the interpreter test.
#[kernel(grid = (PROGRAMS,), warpgroups = 3, warpgroup_axis = wg, max_registers = 168,
         consts(BM = 128, BN = 256, CN = 128, BK = 64, STAGES = 4), ragged(M, N, K),
         instances((bf16, 132), (f16, 132), (bf16, 3)))]
pub fn ceiling<E, const PROGRAMS: usize>(a: Gmem<E, M, K>, b: Gmem<E, K, N>, c: GmemMut<E, M, N>) {
    let (tile_cols, steps) = (cdiv(N, BN), cdiv(K, BK));
    let (p, programs) = (program_id(0), num_programs(0));
    let mine = (cdiv(M, BM) * tile_cols - p + programs - 1) / programs;
    run_scoped(
        collective_axes = [wg],
        |a_s: Smem<E, STAGES, 2, 64, BK, Swizzle128>,
         b_s: Smem<E, STAGES, BK, BN, Swizzle128>,
         c_s: Smem<E, 2, 64, CN, Swizzle128>,
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
                            c_s.at(h).store(acc.slice([.., CN * q..CN * q + CN]).load().cast::<E>());
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

/// The PTX of every instance the benchmark runs, by name (for `ptxas` checks).
pub const ALL_PTX: &[(&str, tessel::Ptx)] =
    &[("ceiling_bf16", ceiling::<bf16, 132>::PTX), ("ceiling_f16", ceiling::<f16, 132>::PTX)];
