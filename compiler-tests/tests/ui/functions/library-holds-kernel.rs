//! A kernel in a `#[kernel_fns]` library, which holds kernel functions: kernels go in the
//! `#[kernels]` modules that use it.

use tessel::prelude::*;

#[kernel_fns]
mod tiles {
    use tessel::prelude::*;

    #[kernel(grid = (M / 64 * (N / 64)))]
    pub fn copy(x: Gmem<f32, M, N>, y: GmemMut<f32, M, N>) {
        let (i, j) = (program_id(0) / (N / 64), program_id(0) % (N / 64));
        y.tile([i, j], [64, 64]).store(x.tile([i, j], [64, 64]).load(Layout::Wgmma));
    }
}

fn main() {}
