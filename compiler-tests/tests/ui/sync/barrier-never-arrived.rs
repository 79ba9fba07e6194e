//! S2: a wait on a barrier that nothing arrives on. Underlines the wait.

use tessel::prelude::*;

#[kernel(grid = (M / 64, N / 64))]
fn copy(x: Gmem<f32, M, N>, y: GmemMut<f32, M, N>) {
    let (i, j) = (program_id(0), program_id(1));
    run_scoped(|x_s: Smem<f32, 64, 64>, loaded: Barrier, ready: Barrier| {
        copy_gmem_to_smem(x.tile([i, j]), x_s, loaded);
        barrier_wait(loaded);
        barrier_wait(ready);
        y.tile([i, j], [64, 64]).store(x_s.load(Layout::Strided));
    });
}

fn main() {}
