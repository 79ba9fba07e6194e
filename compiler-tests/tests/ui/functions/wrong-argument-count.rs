//! A call of a kernel function with too few arguments: reported at the call's arguments.

use tessel::prelude::*;

#[kernels]
mod tiles {
    use tessel::prelude::*;

    fn tile_of(p: i32, tiles_n: i32) -> (i32, i32) {
        (p / tiles_n, p % tiles_n)
    }

    #[kernel(grid = (M / 64 * (N / 64)))]
    fn copy(x: Gmem<f32, M, N>, y: GmemMut<f32, M, N>) {
        let (i, j) = tile_of(program_id(0));
        y.tile([i, j], [64, 64]).store(x.tile([i, j], [64, 64]).load(Layout::Wgmma));
    }
}

fn main() {}
