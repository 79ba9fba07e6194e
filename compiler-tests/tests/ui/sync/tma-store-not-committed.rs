//! S5: a TMA store of `y_s` right after the register store into it, with no `commit_smem()`
//! between. Underlines the store's source.

use tessel::prelude::*;

#[kernel(grid = (M / 64, N / 64))]
fn copy(x: Gmem<f32, M, N>, y: GmemMut<f32, M, N>) {
    let (i, j) = (program_id(0), program_id(1));
    run_scoped(|y_s: Smem<f32, 64, 64>| {
        y_s.store(x.tile([i, j], [64, 64]).load(Layout::Strided) * 2.0);
        copy_smem_to_gmem(y_s, y.tile([i, j]));
        wait_smem_to_gmem(0);
    });
}

fn main() {}
