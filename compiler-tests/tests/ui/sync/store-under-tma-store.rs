//! S6: the second tile is stored into `y_s` while the TMA store of the first may still be reading
//! it (no `wait_smem_to_gmem` between). Underlines `y_s`.

use tessel::prelude::*;

#[kernel(grid = (M / 64, N / 64))]
fn copy(x: Gmem<f32, M, N>, y: GmemMut<f32, M, N>) {
    let (i, j) = (program_id(0), program_id(1));
    run_scoped(|y_s: Smem<f32, 64, 64>| {
        y_s.store(x.tile([i, j], [64, 64]).load(Layout::Strided));
        commit_smem();
        copy_smem_to_gmem(y_s, y.tile([i, j]));
        y_s.store(x.tile([i, j + 1], [64, 64]).load(Layout::Strided));
        commit_smem();
        copy_smem_to_gmem(y_s, y.tile([i, j + 1]));
        wait_smem_to_gmem(0);
    });
}

fn main() {}
