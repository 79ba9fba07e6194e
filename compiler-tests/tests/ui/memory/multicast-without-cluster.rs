//! tessel: a multicast TMA load in a kernel without a cluster.

use tessel::prelude::*;

#[kernel(grid = (M / 64))]
fn lonely_multicast(x: Gmem<bf16, M, 64>) {
    let i = program_id(0);
    run_scoped(|x_s: Smem<bf16, 64, 64, Swizzle128>, bar: Barrier| {
        copy_gmem_to_smem(x.tile([i, 0]), x_s, bar, multicast = true);
    });
}

fn main() {}
