//! A kernel function that declares a read-only `Gmem` and stores to it: reported in its body, by
//! the parameter's name, with a note at the call (the kernel's array is a `GmemMut`).

use tessel::prelude::*;

#[kernels]
mod tiles {
    use tessel::prelude::*;

    fn store_ones(out: Gmem<f32, M, N>, i: i32, j: i32) {
        out.tile([i, j], [64, 64]).store(splat::<f32>(1.0, [64, 64]).to_layout(Layout::Wgmma));
    }

    #[kernel(grid = (M / 64, N / 64))]
    fn ones(c: GmemMut<f32, M, N>) {
        store_ones(c, program_id(0), program_id(1));
    }
}

fn main() {}
