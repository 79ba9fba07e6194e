//! tessel: `fma` of `i32` arrays (it rounds once, which only floats do).

use tessel::prelude::*;

#[kernel(grid = (1))]
fn int_fma(x: Gmem<i32, 64, 64>, y: GmemMut<i32, 64, 64>) {
    let v = x.tile([0, 0], [64, 64]).load(Layout::Wgmma);
    y.tile([0, 0]).store(fma(v, v, 1));
}

fn main() {}
