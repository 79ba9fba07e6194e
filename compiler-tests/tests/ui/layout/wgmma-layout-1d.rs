//! C6 (first form): the WGMMA layout asked to hold a 1-D array.

use tessel::prelude::*;

#[kernel(grid = (1))]
fn one_dimensional() {
    let v = splat::<f32>(1.0, [64]).to_layout(Layout::Wgmma);
}

fn main() {}
