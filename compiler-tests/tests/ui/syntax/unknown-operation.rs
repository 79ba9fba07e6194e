//! A call of a function that is not a tessel operation.

use tessel::prelude::*;

#[kernel(grid = (1))]
fn calls_softmax(x: Gmem<f32, 64, 64>) {
    let v = x.tile([0, 0], [64, 64]).load(Layout::Wgmma);
    let p = softmax(v);
}

fn main() {}
