//! An allocation takes one attribute, `#[when(condition)]`.

use tessel::prelude::*;

#[kernel(grid = (M / 64, N / 64), instances(1, 2))]
fn k<const COPIES: usize>(x: Gmem<f32, M, N>, y: GmemMut<f32, M, N>) {
    let (i, j) = (program_id(0), program_id(1));
    run_scoped(|#[cfg(COPIES > 1)] x_s: Smem<f32, 64, 64>| {
        x_s.store(x.tile([i, j], [64, 64]).load(Layout::Strided));
        commit_smem();
        y.tile([i, j], [64, 64]).store(x_s.load(Layout::Strided));
    });
}

fn main() {}
