//! A dtype tessel does not have, in a parameter: the parameter's uses report nothing more.

use tessel::prelude::*;

#[kernel(grid = (1))]
fn f64_input(x: Gmem<f64, 64>, y: GmemMut<f32, 64>) {
    y.tile([0], [64]).store(x.tile([0], [64]).load(Layout::Strided));
}

fn main() {}
