//! S6: a TMA load refills `x_s` while the TMA store of its previous contents may still be reading
//! it. Underlines the load's destination.

use tessel::prelude::*;

#[kernel(grid = (M / 64, N / 64))]
fn copy(x: Gmem<f32, M, N>, y: GmemMut<f32, M, N>) {
    let (i, j) = (program_id(0), program_id(1));
    run_scoped(|x_s: Smem<f32, 64, 64>, bar: Barrier| {
        copy_gmem_to_smem(x.tile([i, j]), x_s, bar);
        barrier_wait(bar);
        copy_smem_to_gmem(x_s, y.tile([i, j]));
        copy_gmem_to_smem(x.tile([i, j + 1]), x_s, bar);
        barrier_wait(bar);
        copy_smem_to_gmem(x_s, y.tile([i, j + 1]));
        wait_smem_to_gmem(0);
    });
}

fn main() {}
