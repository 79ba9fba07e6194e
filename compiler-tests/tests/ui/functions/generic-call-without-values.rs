//! A call of a generic kernel function that does not name its instance: reported at the name.

use tessel::prelude::*;

#[kernels]
mod scaled {
    use tessel::prelude::*;

    fn scale<T>(x: Regs<T, 64, 64, Layout::Strided>) -> Regs<f32, 64, 64, Layout::Strided> {
        x.cast::<f32>() * 2.0
    }

    #[kernel(grid = (M / 64, N / 64))]
    fn double(x: Gmem<bf16, M, N>, y: GmemMut<f32, M, N>) {
        let (i, j) = (program_id(0), program_id(1));
        y.tile([i, j], [64, 64]).store(scale(x.tile([i, j], [64, 64]).load(Layout::Strided)));
    }
}

fn main() {}
