//! A window of a register array whose layout does not repeat in whole blocks: each thread's
//! elements of the window would be other elements than its elements of the array.

use tessel::prelude::*;

#[kernel(grid = (1,))]
fn slice_strided(x: Gmem<f32, 64, 64>, y: GmemMut<f32, 64, 32>) {
    let v = x.tile([0, 0], [64, 64]).load(Layout::Strided);
    y.tile([0, 0], [64, 32]).store(v.slice([.., 0..32]));
}

fn main() {}
