//! tessel: a reducing TMA store of a dtype its operation does not combine (no f32 maximum).

use tessel::prelude::*;

#[kernel(grid = (M / 64))]
fn max_rows(x: Gmem<f32, M, 64>, y: GmemMut<f32, 64, 64>) {
    let i = program_id(0);
    run_scoped(|x_s: Smem<f32, 64, 64>, bar: Barrier| {
        copy_gmem_to_smem(x.tile([i, 0]), x_s, bar);
        barrier_wait(bar);
        copy_smem_to_gmem(x_s, y.tile([0, 0]), reduce = Reduce::Max);
        wait_smem_to_gmem(0);
    });
}

fn main() {}
