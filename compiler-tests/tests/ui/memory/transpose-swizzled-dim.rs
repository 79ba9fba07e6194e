//! E16 (first form): a permutation that moves the swizzled (last) dimension away from the last two.

use tessel::prelude::*;

#[kernel(grid = (1))]
fn move_minor() {
    run_scoped(|acc: Acc<f32, 64, 64>, a_s: Smem<bf16, 64, 2, 64, Swizzle128>, b_s: Smem<bf16, 64, 64, Swizzle128>| {
        let view = a_s.transpose([2, 1, 0]);
    });
}

fn main() {}
