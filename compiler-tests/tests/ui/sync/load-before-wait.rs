//! S1: a register load of `x_s` before the wait on its copy's barrier. Underlines `x_s`.

use tessel::prelude::*;

#[kernel(grid = (M / 64, N / 64))]
fn copy(x: Gmem<f32, M, N>, y: GmemMut<f32, M, N>) {
    let (i, j) = (program_id(0), program_id(1));
    run_scoped(|x_s: Smem<f32, 64, 64>, bar: Barrier| {
        copy_gmem_to_smem(x.tile([i, j]), x_s, bar);
        let v = x_s.load(Layout::Strided);
        barrier_wait(bar);
        y.tile([i, j], [64, 64]).store(v);
    });
}

fn main() {}
