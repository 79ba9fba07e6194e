//! S1 with an array of barriers: `x_s.at(0)` lands on `bars.at(0)`, but the read follows only the
//! wait on `bars.at(1)`. Underlines `x_s.at(0)`.

use tessel::prelude::*;

#[kernel(grid = (M / 64, N / 64))]
fn copy(x: Gmem<f32, M, N>, y: GmemMut<f32, M, N>) {
    let (i, j) = (program_id(0), program_id(1));
    run_scoped(|x_s: Smem<f32, 2, 64, 64>, bars: Barrier<1, 2>| {
        copy_gmem_to_smem(x.tile([i, 2 * j]), x_s.at(0), bars.at(0));
        copy_gmem_to_smem(x.tile([i, 2 * j + 1]), x_s.at(1), bars.at(1));
        barrier_wait(bars.at(1));
        let v = x_s.at(0).load(Layout::Strided) + x_s.at(1).load(Layout::Strided);
        barrier_wait(bars.at(0));
        y.tile([i, j], [64, 64]).store(v);
    });
}

fn main() {}
