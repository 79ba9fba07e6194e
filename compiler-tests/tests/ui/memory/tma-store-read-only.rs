//! tessel: a TMA store into a read-only (`Gmem`) parameter.

use tessel::prelude::*;

#[kernel(grid = (M / 64))]
fn store_input(x: Gmem<f32, M, 64>) {
    let i = program_id(0);
    run_scoped(|x_s: Smem<f32, 64, 64>| {
        copy_smem_to_gmem(x_s, x.tile([i, 0]));
    });
}

fn main() {}
