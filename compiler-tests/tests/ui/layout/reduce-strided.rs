//! A row reduction of a 2-D strided array: it reduces once converted to `Layout::Wgmma`.

use tessel::prelude::*;

#[kernel(grid = (1))]
fn row_sums(x: Gmem<f32, 64, 64>) {
    let v = x.tile([0, 0], [64, 64]).load(Layout::Strided);
    let sums = v.sum(1);
}

fn main() {}
