//! A6: an accumulator whose N is not a multiple of 8.

use tessel::prelude::*;

#[kernel(grid = (1))]
fn ragged_acc() {
    run_scoped(|acc: Acc<f32, 64, 60>| {});
}

fn main() {}
