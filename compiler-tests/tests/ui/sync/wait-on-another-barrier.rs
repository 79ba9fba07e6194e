//! S1: `x_s` is loaded on `loaded`, but the read follows only the wait on `other` (where the
//! copy into `z_s` lands). Underlines `x_s`.

use tessel::prelude::*;

#[kernel(grid = (M / 64, N / 64))]
fn copy(x: Gmem<f32, M, N>, y: GmemMut<f32, M, N>) {
    let (i, j) = (program_id(0), program_id(1));
    run_scoped(|x_s: Smem<f32, 64, 64>, z_s: Smem<f32, 64, 64>, loaded: Barrier, other: Barrier| {
        copy_gmem_to_smem(x.tile([i, j]), x_s, loaded);
        copy_gmem_to_smem(x.tile([i, j + 1]), z_s, other);
        barrier_wait(other);
        let v = x_s.load(Layout::Strided) + z_s.load(Layout::Strided);
        barrier_wait(loaded);
        y.tile([i, j], [64, 64]).store(v);
    });
}

fn main() {}
