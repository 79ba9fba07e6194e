//! A `const` item in a `#[kernels]` module, which holds kernels, kernel functions and `use` items.

use tessel::prelude::*;

#[kernels]
mod tiles {
    use tessel::prelude::*;

    const TILE: i32 = 64;

    #[kernel(grid = (N / 64))]
    fn copy(x: Gmem<f32, 64, N>, y: GmemMut<f32, 64, N>) {
        let j = program_id(0);
        y.tile([0, j], [64, 64]).store(x.tile([0, j], [64, 64]).load(Layout::Wgmma));
    }
}

fn main() {}
