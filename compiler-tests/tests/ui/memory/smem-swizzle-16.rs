//! E14 (second form): a 16-byte swizzle, which neither WGMMA nor TMA has.

use tessel::prelude::*;

#[kernel(grid = (1))]
fn swizzle_16() {
    run_scoped(|a_s: Smem<bf16, 64, 64, Swizzle<16>>| {});
}

fn main() {}
