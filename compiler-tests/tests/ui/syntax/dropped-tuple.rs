//! tessel: a value computed and dropped, here the arguments of a TMA copy whose name was lost.

use tessel::prelude::*;

#[kernel(grid = (M / 64))]
fn lost_call(x: Gmem<bf16, M, 64>) {
    let i = program_id(0);
    run_scoped(|x_s: Smem<bf16, 64, 64, Swizzle128>, bar: Barrier| {
        (x.tile([i, 0]), x_s, bar);
        barrier_wait(bar);
    });
}

fn main() {}
