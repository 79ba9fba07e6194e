//! A kernel function that returns a shared buffer: memory is passed in, values come out.

use tessel::prelude::*;

#[kernels]
mod tiles {
    use tessel::prelude::*;

    fn stage(buf: Smem<f32, 2, 64, 64>, s: i32) -> Smem<f32, 64, 64> {
        buf.at(s)
    }

    #[kernel(grid = (1))]
    fn fill(y: GmemMut<f32, 64, 64>) {
        run_scoped(|y_s: Smem<f32, 2, 64, 64>| {
            stage(y_s, 1).store(splat::<f32>(1.0, [64, 64]).to_layout(Layout::Strided));
        });
    }
}

fn main() {}
