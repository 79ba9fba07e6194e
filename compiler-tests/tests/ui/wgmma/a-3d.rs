//! E17: a three-dimensional A (a whole pipeline buffer, without `.at(s)`).

use tessel::prelude::*;

#[kernel(grid = (1))]
fn a_3d() {
    run_scoped(|acc: Acc<f32, 64, 64>, a_s: Smem<bf16, 2, 64, 64, Swizzle128>, b_s: Smem<bf16, 64, 64, Swizzle128>| {
        wgmma(acc, a_s, b_s);
    });
}

fn main() {}
