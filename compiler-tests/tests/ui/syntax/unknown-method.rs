//! A method that is not a tessel operation.

use tessel::prelude::*;

#[kernel(grid = (1))]
fn reshapes(x: Gmem<f32, 64, 64>) {
    let v = x.tile([0, 0], [64, 64]).load(Layout::Wgmma);
    let r = v.reshape([4096]);
}

fn main() {}
