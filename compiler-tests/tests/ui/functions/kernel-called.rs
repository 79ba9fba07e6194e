//! A kernel calling another kernel of its module.

use tessel::prelude::*;

#[kernels]
mod twice {
    use tessel::prelude::*;

    #[kernel(grid = (N / 128))]
    pub fn double(x: Gmem<f32, N>, y: GmemMut<f32, N>) {
        let i = program_id(0);
        y.tile([i], [128]).store(x.tile([i], [128]).load(Layout::Strided) * 2.0);
    }

    #[kernel(grid = (N / 128))]
    pub fn quadruple(x: Gmem<f32, N>, y: GmemMut<f32, N>) {
        double(x, y);
    }
}

fn main() {}
