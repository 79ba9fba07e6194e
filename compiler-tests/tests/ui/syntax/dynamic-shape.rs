//! tessel: a register array whose shape depends on a runtime dimension.

use tessel::prelude::*;

#[kernel(grid = (1))]
fn runtime_shape(x: Gmem<f32, M, N>) {
    let v = splat::<f32>(0.0, [64, N]);
}

fn main() {}
