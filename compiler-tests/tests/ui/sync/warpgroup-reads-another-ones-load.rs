//! S7 with TMA: warpgroup 0 loads `x_s` and waits for it, and warpgroup 1 reads it without
//! waiting on anything. Underlines warpgroup 1's read.

use tessel::prelude::*;

#[kernel(grid = (M / 128, N / 64), warpgroups = 2, warpgroup_axis = wg)]
fn shared_tile(x: Gmem<f32, M, N>, y: GmemMut<f32, M, N>) {
    let (i, j) = (program_id(0), program_id(1));
    let w = warpgroup_id();
    run_scoped(collective_axes = [wg], |x_s: Smem<f32, 64, 64>, bar: Barrier| {
        if w == 0 {
            copy_gmem_to_smem(x.tile([2 * i, j]), x_s, bar);
            barrier_wait(bar);
        }
        y.tile([2 * i + w, j], [64, 64]).store(x_s.load(Layout::Strided));
    });
}

fn main() {}
