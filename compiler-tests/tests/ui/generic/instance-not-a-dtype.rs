//! A type parameter's value is a dtype (with a host type: the call names it, `rows::<bf16, 64>`).

use tessel::prelude::*;

#[kernel(grid = (M / 64), instances((bf16, 64), (64, 64)))]
fn rows<T, const BN: usize>(x: Gmem<T, M, BN>, y: GmemMut<T, M, BN>) {
    let i = program_id(0);
    y.tile([i, 0], [64, BN]).store(x.tile([i, 0], [64, BN]).load(Layout::Strided));
}

fn main() {}
