//! tessel: `.atomic_add` wrong in its destination (a read-only `Gmem`) and in its value (an
//! accumulator, not registers): both reported.

use tessel::prelude::*;

#[kernel(grid = (1))]
fn add_twice_wrong(y: Gmem<f32, 64, 64>) {
    run_scoped(|acc: Acc<f32, 64, 64>| {
        y.tile([0, 0], [64, 64]).atomic_add(acc);
    });
}

fn main() {}
