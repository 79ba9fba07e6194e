//! S2 in a cluster: `barrier_arrive(.., cluster = true)` arrives on the barrier of both programs
//! of the pair, so each phase gets two arrivals, and the barrier is declared for one. Underlines
//! the wait.

use tessel::prelude::*;

#[kernel(grid = (M / 64, N / 64), cluster = (2, 1))]
fn pair(x: Gmem<f32, M, N>, y: GmemMut<f32, M, N>) {
    let (i, j) = (program_id(0), program_id(1));
    run_scoped(|x_s: Smem<f32, 64, 64>, loaded: Barrier, released: Barrier| {
        copy_gmem_to_smem(x.tile([i, j]), x_s, loaded);
        barrier_wait(loaded);
        let v = x_s.load(Layout::Strided);
        barrier_arrive(released, cluster = true);
        barrier_wait(released);
        y.tile([i, j], [64, 64]).store(v);
    });
}

fn main() {}
