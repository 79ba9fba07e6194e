//! C6 (second form): the WGMMA layout asked to hold 32 rows (it holds multiples of 64).

use tessel::prelude::*;

#[kernel(grid = (1))]
fn thirty_two_rows(x: Gmem<f32, 32, 64>) {
    let v = x.tile([0, 0], [32, 64]).load(Layout::Wgmma);
}

fn main() {}
