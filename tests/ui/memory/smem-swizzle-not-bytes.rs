//! E14 (third form): a swizzle is a number of bytes, not a negative one.

use tessel::prelude::*;

#[kernel(grid = (1))]
fn swizzle_negative() {
    run_scoped(|a_s: Smem<bf16, 64, 64, Swizzle<-128>>| {});
}

fn main() {}
