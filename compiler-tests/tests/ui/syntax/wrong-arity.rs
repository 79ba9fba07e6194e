//! tessel: a tessel operation with the wrong number of arguments.

use tessel::prelude::*;

#[kernel(grid = (1))]
fn short_wgmma() {
    run_scoped(|acc: Acc<f32, 64, 64>, a_s: Smem<bf16, 64, 64, Swizzle128>| {
        wgmma(acc, a_s);
    });
}

fn main() {}
