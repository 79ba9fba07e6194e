//! A shared buffer passed where a kernel function declares a scalar: reported at the argument.

use tessel::prelude::*;

#[kernels]
mod tiles {
    use tessel::prelude::*;

    fn stage_of(k: i32, stages: i32) -> i32 {
        k % stages
    }

    #[kernel(grid = (1))]
    fn fill(y: GmemMut<f32, 64, 64>) {
        run_scoped(|y_s: Smem<f32, 2, 64, 64>| {
            let s = stage_of(y_s, 2);
            y_s.at(s).store(splat::<f32>(1.0, [64, 64]).to_layout(Layout::Strided));
        });
    }
}

fn main() {}
