//! A3: `collective_axes` names an axis that is not the kernel's warpgroup axis.

use tessel::prelude::*;

#[kernel(grid = (M / 64), warpgroups = 2, warpgroup_axis = wg)]
fn wrong_axis(a: Gmem<bf16, M, K>) {
    run_scoped(collective_axes = [x], |a_s: Smem<bf16, 64, 64, Swizzle128>| {});
}

fn main() {}
