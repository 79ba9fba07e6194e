//! The condition of a `ragged(..)` dimension's `#[when(..)]` is known when the kernel is read.

use tessel::prelude::*;

#[kernel(grid = (cdiv(M, 64), N / 64), ragged(#[when(N > 64)] M))]
fn k(x: Gmem<f32, M, N>, y: GmemMut<f32, M, N>) {
    let (i, j) = (program_id(0), program_id(1));
    y.tile([i, j], [64, 64]).store(x.tile([i, j], [64, 64]).load(Layout::Strided));
}

fn main() {}
