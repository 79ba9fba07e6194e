//! The accumulator itself stored into a tile, where its registers (`acc.load()`) are meant.

use tessel::prelude::*;

#[kernel(grid = (M / 64))]
fn epilogue(y: GmemMut<f32, M, 64>) {
    let i = program_id(0);
    run_scoped(|acc: Acc<f32, 64, 64>| {
        y.tile([i, 0], [64, 64]).store(acc);
    });
}

fn main() {}
