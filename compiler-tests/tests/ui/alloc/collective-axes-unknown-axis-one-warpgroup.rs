//! A3 in a kernel of one warpgroup: leaving `collective_axes` out is a fix there too.

use tessel::prelude::*;

#[kernel(grid = (M / 64), warpgroup_axis = wg)]
fn wrong_axis(a: Gmem<bf16, M, K>) {
    run_scoped(collective_axes = [x], |a_s: Smem<bf16, 64, 64, Swizzle128>| {});
}

fn main() {}
