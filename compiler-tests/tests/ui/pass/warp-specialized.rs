//! A warp-specialized GEMM: three warpgroups (`warpgroup_axis = wg`), shared buffers and barriers
//! allocated collectively (`collective_axes = [wg]`), one producer warpgroup issuing TMA loads with
//! few registers and two consumers running WGMMA on per-warpgroup accumulators with many
//! (`max_registers` at entry, `set_max_registers` per role).

use tessel::prelude::*;

#[kernel(
    grid = (M / 128, N / 128),
    warpgroups = 3,
    warpgroup_axis = wg,
    max_registers = 168,
    consts(STAGES = 4, BK = 64)
)]
fn gemm_ws(a: Gmem<bf16, M, K>, b: Gmem<bf16, K, N>, c: GmemMut<bf16, M, N>) {
    let (i, j) = (program_id(0), program_id(1));
    run_scoped(
        collective_axes = [wg],
        |a_s: Smem<bf16, STAGES, 2, 64, BK, Swizzle128>,
         b_s: Smem<bf16, STAGES, BK, 128, Swizzle128>,
         c_s: Smem<bf16, 2, 64, 128, Swizzle128>,
         full: Barrier<3, STAGES>,
         empty: Barrier<2, STAGES>| {
            let w = warpgroup_id();
            if w == 2 {
                set_max_registers(40);
                for k in 0..K / BK {
                    let s = k % STAGES;
                    if k >= STAGES {
                        barrier_wait(empty.at(s));
                    }
                    copy_gmem_to_smem(a.tile([2 * i, k]), a_s.at(s).at(0), full.at(s));
                    copy_gmem_to_smem(a.tile([2 * i + 1, k]), a_s.at(s).at(1), full.at(s));
                    copy_gmem_to_smem(b.tile([k, j]), b_s.at(s), full.at(s));
                }
            } else {
                set_max_registers(232);
                run_scoped(|acc: Acc<f32, 64, 128>| {
                    for k in 0..K / BK {
                        let s = k % STAGES;
                        barrier_wait(full.at(s));
                        wgmma(acc, a_s.at(s).at(w), b_s.at(s));
                        wgmma_wait(0);
                        barrier_arrive(empty.at(s));
                    }
                    c_s.at(w).store(acc.load().cast::<bf16>());
                });
                commit_smem();
                copy_smem_to_gmem(c_s.at(w), c.tile([2 * i + w, j]));
                wait_smem_to_gmem(0);
            }
        },
    );
}

// Two warpgroups each computing its own 64-row half in registers, sharing B.
#[kernel(grid = (M / 128, N / 64), warpgroups = 2, warpgroup_axis = wg)]
fn two_consumers(a: Gmem<f16, M, K>, b: Gmem<f16, K, N>, c: GmemMut<f32, M, N>) {
    let (i, j) = (program_id(0), program_id(1));
    let w = warpgroup_id();
    run_scoped(
        collective_axes = [wg],
        |a_s: Smem<f16, 2, 64, 64, Swizzle128>, b_s: Smem<f16, 64, 64, Swizzle128>, bar: Barrier<3>, done: Barrier<2>| {
            run_scoped(|acc: Acc<f32, 64, 64>| {
                for k in 0..K / 64 {
                    copy_gmem_to_smem(a.tile([2 * i + w, k]), a_s.at(w), bar);
                    if w == 0 {
                        copy_gmem_to_smem(b.tile([k, j]), b_s, bar);
                    }
                    barrier_wait(bar);
                    wgmma(acc, a_s.at(w), b_s);
                    wgmma_wait(0);
                    // Both warpgroups are done with the buffers before either refills them.
                    barrier_arrive(done);
                    barrier_wait(done);
                }
                c.tile([2 * i + w, j]).store(acc.load());
            });
        },
    );
}

fn main() {}
