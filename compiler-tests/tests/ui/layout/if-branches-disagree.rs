//! tessel: the two branches of an `if` leave a register array in different layouts.

use tessel::prelude::*;

#[kernel(grid = (1))]
fn branches(x: Gmem<f32, 64, 64>, flag: i32) {
    let mut v = x.tile([0, 0], [64, 64]).load(Layout::Wgmma);
    if flag > 0 {
        v = v.to_layout(Layout::Strided);
    } else {
        v = v * 2.0;
    }
}

fn main() {}
