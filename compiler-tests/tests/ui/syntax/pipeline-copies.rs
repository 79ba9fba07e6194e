//! tessel: a stage of `Pipeline<2, 2, 1>` is full after two copies, but the producer issues one.

use tessel::prelude::*;

#[kernel(grid = (M / 64, N / 64), warpgroups = 2, warpgroup_axis = wg)]
fn one_copy_short(a: Gmem<bf16, M, K>, b: Gmem<bf16, K, N>, c: GmemMut<f32, M, N>) {
    let (i, j) = (program_id(0), program_id(1));
    run_scoped(
        collective_axes = [wg],
        |a_s: Smem<bf16, 2, 64, 64, Swizzle128>, b_s: Smem<bf16, 2, 64, 64, Swizzle128>, ring: Pipeline<2, 2, 1>| {
            if warpgroup_id() == 0 {
                pipeline_produce(ring, K / 64, |k, s, bar| {
                    copy_gmem_to_smem(a.tile([i, k]), a_s.at(s), bar);
                });
            } else {
                run_scoped(|acc: Acc<f32, 64, 64>| {
                    pipeline_consume(ring, K / 64, |k, s| wgmma(acc, a_s.at(s), b_s.at(s)));
                    c.tile([i, j]).store(acc.load());
                });
            }
        },
    );
}

fn main() {}
