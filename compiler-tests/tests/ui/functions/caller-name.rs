//! A kernel function that names its caller's local: a kernel function sees only its parameters
//! and its own names, so this is an error where the function is declared, not a capture.

use tessel::prelude::*;

#[kernels]
mod tiles {
    use tessel::prelude::*;

    fn column(p: i32) -> i32 {
        p % tiles_n
    }

    #[kernel(grid = (N / 64))]
    fn copy(x: Gmem<f32, 64, N>, y: GmemMut<f32, 64, N>) {
        let tiles_n = N / 64;
        let j = column(program_id(0));
        y.tile([0, j], [64, 64]).store(x.tile([0, j], [64, 64]).load(Layout::Wgmma));
    }
}

fn main() {}
