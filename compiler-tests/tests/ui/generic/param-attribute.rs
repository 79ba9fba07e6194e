//! A kernel parameter takes one attribute, `#[when(condition)]`.

use tessel::prelude::*;

#[kernel(grid = (M / 64, N / 64))]
fn k(x: Gmem<f32, M, N>, #[cfg(feature = "copy")] y: GmemMut<f32, M, N>) {
    let (i, j) = (program_id(0), program_id(1));
    y.tile([i, j], [64, 64]).store(x.tile([i, j], [64, 64]).load(Layout::Strided));
}

fn main() {}
