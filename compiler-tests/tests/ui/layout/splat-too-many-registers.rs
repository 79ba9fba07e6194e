//! tessel: a register array larger than a warpgroup's registers.

use tessel::prelude::*;

#[kernel(grid = (1))]
fn huge_array() {
    let v = splat::<f32>(0.0, [1024, 1024]);
}

fn main() {}
