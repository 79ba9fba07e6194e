//! tessel: `.atomic_add` of an accumulator, which must be loaded into registers first.

use tessel::prelude::*;

#[kernel(grid = (1))]
fn add_acc(y: GmemMut<f32, 64, 64>) {
    run_scoped(|acc: Acc<f32, 64, 64>| {
        y.tile([0, 0], [64, 64]).atomic_add(acc);
    });
}

fn main() {}
