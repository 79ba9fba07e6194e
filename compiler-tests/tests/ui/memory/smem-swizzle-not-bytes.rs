//! E14 (third form): a swizzle is a number of bytes, not a negative one. (The buffer's uses report
//! nothing more: its declaration was rejected.)

use tessel::prelude::*;

#[kernel(grid = (1))]
fn swizzle_negative(x: Gmem<bf16, 64, 64>) {
    run_scoped(|a_s: Smem<bf16, 64, 64, Swizzle<-128>>, bar: Barrier| {
        copy_gmem_to_smem(x.tile([0, 0]), a_s, bar);
        barrier_wait(bar);
    });
}

fn main() {}
