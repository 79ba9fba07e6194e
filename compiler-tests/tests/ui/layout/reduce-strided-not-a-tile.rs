//! A reduction of a 2-D strided array that `.to_layout(Layout::Wgmma)` cannot convert (32 rows):
//! the help says what reduces instead of offering that conversion.

use tessel::prelude::*;

#[kernel(grid = (1))]
fn row_sums(x: Gmem<f32, 32, 64>, y: GmemMut<f32, 32>) {
    let v = x.tile([0, 0], [32, 64]).load(Layout::Strided);
    let sums = v.sum(1);
}

fn main() {}
