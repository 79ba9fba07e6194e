//! S7: warpgroup 0 stores a tile into shared memory and warpgroup 1 reads it, with no barrier
//! between them. Underlines warpgroup 1's read.

use tessel::prelude::*;

#[kernel(grid = (M / 64, N / 64), warpgroups = 2, warpgroup_axis = wg)]
fn handoff(x: Gmem<f32, M, N>, y: GmemMut<f32, M, N>) {
    let (i, j) = (program_id(0), program_id(1));
    run_scoped(collective_axes = [wg], |buf: Smem<f32, 64, 64>| {
        if warpgroup_id() == 0 {
            buf.store(x.tile([i, j], [64, 64]).load(Layout::Strided));
            commit_smem();
        } else {
            y.tile([i, j], [64, 64]).store(buf.load(Layout::Strided) * 2.0);
        }
    });
}

fn main() {}
