//! tessel: each dimension once in `ragged(..)`.

use tessel::prelude::*;

#[kernel(grid = (cdiv(M, 64), cdiv(N, 64)), ragged(M, N, M))]
fn double(x: Gmem<bf16, M, N>, y: GmemMut<bf16, M, N>) {
    let (i, j) = (program_id(0), program_id(1));
    let v = x.tile([i, j], [64, 64]).load(Layout::Wgmma);
    y.tile([i, j]).store(v * 2.0);
}

fn main() {}
