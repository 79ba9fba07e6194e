//! SEED 002: an accumulator allocated in a collective `run_scoped`, beside the shared buffers.

use tessel::prelude::*;

#[kernel(grid = (M / 64), warpgroups = 2, warpgroup_axis = wg)]
fn collective_acc(a: Gmem<bf16, M, K>) {
    run_scoped(collective_axes = [wg], |a_s: Smem<bf16, 64, 64, Swizzle128>, acc: Acc<f32, 64, 64>, bar: Barrier| {});
}

fn main() {}
