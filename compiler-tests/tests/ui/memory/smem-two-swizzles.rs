//! tessel: a buffer declared with two swizzles.

use tessel::prelude::*;

#[kernel(grid = (1))]
fn two_swizzles() {
    run_scoped(|a_s: Smem<bf16, 64, 64, Swizzle128, Swizzle64>| {});
}

fn main() {}
