//! tessel: a 128 x 256 f32 accumulator needs 256 registers in each of a warpgroup's 128 threads,
//! more than a thread has (two warpgroups of 64 x 256 hold it).

use tessel::prelude::*;

#[kernel(grid = (1))]
fn huge_acc() {
    run_scoped(|acc: Acc<f32, 128, 256>| {});
}

fn main() {}
