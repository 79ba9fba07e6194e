//! C7: a register array carried through a loop leaves the body in another layout than it entered.

use tessel::prelude::*;

#[kernel(grid = (1))]
fn drifting_layout(x: Gmem<f32, 64, 64>) {
    let v = x.tile([0, 0], [64, 64]).load(Layout::Wgmma);
    let mut total = v;
    for k in 0..4 {
        total = (total + v).to_layout(Layout::Strided);
    }
}

fn main() {}
