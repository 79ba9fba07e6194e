//! tessel: `reduce = ..` naming no `Reduce` operation.

use tessel::prelude::*;

#[kernel(grid = (M / 64))]
fn sum_rows(x: Gmem<f32, M, 64>, y: GmemMut<f32, 64, 64>) {
    let i = program_id(0);
    run_scoped(|x_s: Smem<f32, 64, 64>, bar: Barrier| {
        copy_gmem_to_smem(x.tile([i, 0]), x_s, bar);
        barrier_wait(bar);
        copy_smem_to_gmem(x_s, y.tile([0, 0]), reduce = add);
        wait_smem_to_gmem(0);
    });
}

fn main() {}
