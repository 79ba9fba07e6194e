//! S2 across warpgroups: each of two warpgroups arrives once per phase on a barrier declared for
//! three arrivals. Underlines the wait.

use tessel::prelude::*;

#[kernel(grid = (M / 128, N / 64), warpgroups = 2, warpgroup_axis = wg)]
fn halves(x: Gmem<f32, M, N>, y: GmemMut<f32, M, N>) {
    let (i, j) = (program_id(0), program_id(1));
    let w = warpgroup_id();
    run_scoped(collective_axes = [wg], |x_s: Smem<f32, 2, 64, 64>, loaded: Barrier<2>, done: Barrier<3>| {
        copy_gmem_to_smem(x.tile([2 * i + w, j]), x_s.at(w), loaded);
        barrier_wait(loaded);
        let v = x_s.at(w).load(Layout::Strided);
        barrier_arrive(done);
        barrier_wait(done);
        y.tile([2 * i + w, j], [64, 64]).store(v);
    });
}

fn main() {}
