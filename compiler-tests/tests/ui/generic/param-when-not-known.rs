//! The condition of a parameter's `#[when(..)]` is known when the kernel is read: a scalar
//! parameter's value is not.

use tessel::prelude::*;

#[kernel(grid = (M / 64, N / 64))]
fn k(x: Gmem<f32, M, N>, #[when(copies > 0)] y: GmemMut<f32, M, N>, copies: i32) {
    let (i, j) = (program_id(0), program_id(1));
    y.tile([i, j], [64, 64]).store(x.tile([i, j], [64, 64]).load(Layout::Strided));
}

fn main() {}
