//! tessel: an `if` value needs an `else`, a value at the end of each branch, one type for both,
//! and a type that lives in registers.

use tessel::prelude::*;

#[kernel(grid = (1))]
fn choices(x: Gmem<f32, 64, 64>, n: i32) {
    let a = if n > 0 { 1 };
    let c = if n > 0 { 1 } else { n + 1; };
    run_scoped(|s: Smem<f32, 2, 64, 64>| {
        let d = if n > 0 { s.at(0) } else { s.at(1) };
    });
    let e = if n { 1 } else { 2 };
    let f = if n > 0 { x.tile([0, 0], [64, 64]).load(Layout::Wgmma) } else { splat::<f32>(0.0, [64, 64]) };
}

fn main() {}
