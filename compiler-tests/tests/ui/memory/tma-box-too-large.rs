//! tessel: a TMA box of 512 rows (at most 256 per dimension).

use tessel::prelude::*;

#[kernel(grid = (M / 512))]
fn tall_box(x: Gmem<bf16, M, 64>) {
    let i = program_id(0);
    run_scoped(|x_s: Smem<bf16, 512, 64, Swizzle128>, bar: Barrier| {
        copy_gmem_to_smem(x.tile([i, 0]), x_s, bar);
    });
}

fn main() {}
