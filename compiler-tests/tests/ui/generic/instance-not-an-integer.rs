//! A const parameter's value is an integer literal.

use tessel::prelude::*;

#[kernel(grid = (M / 64), instances((bf16, 64), (f16, bf16)))]
fn rows<T, const BN: usize>(x: Gmem<T, M, BN>, y: GmemMut<T, M, BN>) {
    let i = program_id(0);
    y.tile([i, 0], [64, BN]).store(x.tile([i, 0], [64, BN]).load(Layout::Strided));
}

fn main() {}
