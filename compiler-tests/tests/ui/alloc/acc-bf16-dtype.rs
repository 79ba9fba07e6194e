//! A5: an accumulator of a dtype WGMMA cannot accumulate in.

use tessel::prelude::*;

#[kernel(grid = (1))]
fn bf16_acc() {
    run_scoped(|acc: Acc<bf16, 64, 64>| {});
}

fn main() {}
