//! tessel: a TMA copy between an f16 array and a bf16 buffer.

use tessel::prelude::*;

#[kernel(grid = (M / 64))]
fn copy_f16(x: Gmem<f16, M, 64>) {
    let i = program_id(0);
    run_scoped(|x_s: Smem<bf16, 64, 64, Swizzle128>, bar: Barrier| {
        copy_gmem_to_smem(x.tile([i, 0]), x_s, bar);
    });
}

fn main() {}
