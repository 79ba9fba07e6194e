//! A kernel function takes every argument: no attribute on its parameters (`#[when(..)]` goes on
//! the kernel's).

use tessel::prelude::*;

#[kernels]
mod tiles {
    use tessel::prelude::*;

    fn copy_tile(x: Gmem<f32, M, N>, #[when(true)] y: GmemMut<f32, M, N>, i: i32, j: i32) {
        y.tile([i, j], [64, 64]).store(x.tile([i, j], [64, 64]).load(Layout::Strided));
    }

    #[kernel(grid = (M / 64, N / 64))]
    fn copy(x: Gmem<f32, M, N>, y: GmemMut<f32, M, N>) {
        copy_tile(x, y, program_id(0), program_id(1));
    }
}

fn main() {}
