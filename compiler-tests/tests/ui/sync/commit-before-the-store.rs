//! S5: `commit_smem()` comes before the register store it should make visible, not after it.
//! Underlines the TMA store's source.

use tessel::prelude::*;

#[kernel(grid = (M / 64, N / 64))]
fn copy(x: Gmem<f32, M, N>, y: GmemMut<f32, M, N>) {
    let (i, j) = (program_id(0), program_id(1));
    run_scoped(|y_s: Smem<f32, 64, 64>| {
        let v = x.tile([i, j], [64, 64]).load(Layout::Strided);
        commit_smem();
        y_s.store(v + 1.0);
        copy_smem_to_gmem(y_s, y.tile([i, j]));
        wait_smem_to_gmem(0);
    });
}

fn main() {}
