//! A4: a barrier allocated per warpgroup in a kernel of several warpgroups (here without a declared
//! warpgroup axis, so the hint names `wg`).

use tessel::prelude::*;

#[kernel(grid = (1), warpgroups = 3)]
fn per_warpgroup_barrier() {
    run_scoped(|bar: Barrier| {});
}

fn main() {}
