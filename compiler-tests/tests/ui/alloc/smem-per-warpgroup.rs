//! A4: shared memory allocated per warpgroup in a kernel of several warpgroups.

use tessel::prelude::*;

#[kernel(grid = (M / 64), warpgroups = 2, warpgroup_axis = wg)]
fn per_warpgroup(a: Gmem<bf16, M, K>) {
    run_scoped(|a_s: Smem<bf16, 64, 64, Swizzle128>| {});
}

fn main() {}
