//! tessel: a producer's closure names the step, the stage and the stage's barrier.

use tessel::prelude::*;

#[kernel(grid = (M / 64), warpgroups = 2, warpgroup_axis = wg)]
fn two_names(x: Gmem<bf16, M, K>) {
    let i = program_id(0);
    run_scoped(collective_axes = [wg], |x_s: Smem<bf16, 2, 64, 64, Swizzle128>, ring: Pipeline<2, 1, 1>| {
        if warpgroup_id() == 0 {
            pipeline_produce(ring, K / 64, |k, s| copy_gmem_to_smem(x.tile([i, k]), x_s.at(s), ring));
        }
    });
}

fn main() {}
