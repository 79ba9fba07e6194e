//! An instance gives one value per generic parameter.

use tessel::prelude::*;

#[kernel(grid = (M / 64), instances((bf16, 64), (f16)))]
fn rows<T, const BN: usize>(x: Gmem<T, M, BN>, y: GmemMut<T, M, BN>) {
    let i = program_id(0);
    y.tile([i, 0], [64, BN]).store(x.tile([i, 0], [64, BN]).load(Layout::Strided));
}

fn main() {}
