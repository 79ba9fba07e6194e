//! SEED 002 (an accumulator alone in a collective `run_scoped`): the fix is to drop
//! `collective_axes`, which nothing else in the scope needs.

use tessel::prelude::*;

#[kernel(grid = (M / 64), warpgroups = 2, warpgroup_axis = wg)]
fn collective_acc(a: Gmem<bf16, M, K>) {
    run_scoped(collective_axes = [wg], |acc: Acc<f32, 64, 64>| {});
}

fn main() {}
