//! S1: a TMA store of `x_s` straight from the TMA load into it, with no wait between. Underlines
//! the store's source.

use tessel::prelude::*;

#[kernel(grid = (M / 64, N / 64))]
fn copy(x: Gmem<f32, M, N>, y: GmemMut<f32, M, N>) {
    let (i, j) = (program_id(0), program_id(1));
    run_scoped(|x_s: Smem<f32, 64, 64>, bar: Barrier| {
        copy_gmem_to_smem(x.tile([i, j]), x_s, bar);
        copy_smem_to_gmem(x_s, y.tile([i, j]));
        barrier_wait(bar);
        wait_smem_to_gmem(0);
    });
}

fn main() {}
