//! tessel: a cluster-wide barrier arrival in a kernel without a cluster.

use tessel::prelude::*;

#[kernel(grid = (M / 64), warpgroups = 2, warpgroup_axis = wg)]
fn lonely_release(x: Gmem<bf16, M, 64>) {
    let i = program_id(0);
    run_scoped(collective_axes = [wg], |x_s: Smem<bf16, 64, 64, Swizzle128>, bar: Barrier, free: Barrier| {
        if warpgroup_id() == 0 {
            copy_gmem_to_smem(x.tile([i, 0]), x_s, bar);
            barrier_wait(free);
        } else {
            barrier_wait(bar);
            barrier_arrive(free, cluster = true);
        }
    });
}

fn main() {}
