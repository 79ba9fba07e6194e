//! S6 around a loop's back edge: each turn stores a tile into `y_s` while the previous turn's TMA
//! store of it may still be reading it. Underlines `y_s`.

use tessel::prelude::*;

#[kernel(grid = (M / 64))]
fn rows(x: Gmem<f32, M, N>, y: GmemMut<f32, M, N>) {
    let i = program_id(0);
    run_scoped(|y_s: Smem<f32, 64, 64>| {
        for j in 0..N / 64 {
            y_s.store(x.tile([i, j], [64, 64]).load(Layout::Strided) * 2.0);
            commit_smem();
            copy_smem_to_gmem(y_s, y.tile([i, j]));
        }
        wait_smem_to_gmem(0);
    });
}

fn main() {}
