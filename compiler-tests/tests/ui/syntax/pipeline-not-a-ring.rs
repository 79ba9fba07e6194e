//! tessel: `pipeline_consume` on something that is not a `Pipeline` of an enclosing `run_scoped`.

use tessel::prelude::*;

#[kernel(grid = (M / 64), warpgroups = 2, warpgroup_axis = wg)]
fn no_ring(x: Gmem<bf16, M, K>) {
    run_scoped(collective_axes = [wg], |x_s: Smem<bf16, 2, 64, 64, Swizzle128>, full: Barrier<1, 2>| {
        pipeline_consume(full, K / 64, |k, s| {
            let v = x_s.at(s).load(Layout::Wgmma);
        });
    });
}

fn main() {}
