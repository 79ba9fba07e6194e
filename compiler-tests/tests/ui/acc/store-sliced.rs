//! B3: a store into a slice of an accumulator.

use tessel::prelude::*;

#[kernel(grid = (1))]
fn store_slice() {
    run_scoped(|acc: Acc<f32, 64, 128>| {
        let zeros = splat::<f32>(0.0, [64, 64]);
        acc.slice([.., 0..64]).store(zeros);
    });
}

fn main() {}
