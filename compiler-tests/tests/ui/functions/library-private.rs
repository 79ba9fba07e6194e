//! A module's call of a library's function that is not `pub`: only the library's own functions
//! call it.

use tessel::prelude::*;

#[kernel_fns]
mod tiles {
    use tessel::prelude::*;

    /// The tile of program `p` in a grid of `tiles_n` columns.
    fn tile_of(p: i32, tiles_n: i32) -> (i32, i32) {
        (p / tiles_n, p % tiles_n)
    }
}

#[kernels(uses(tiles))]
mod copies {
    use tessel::prelude::*;

    #[kernel(grid = (M / 64 * (N / 64)))]
    fn copy(x: Gmem<f32, M, N>, y: GmemMut<f32, M, N>) {
        let (i, j) = tile_of(program_id(0), N / 64);
        y.tile([i, j], [64, 64]).store(x.tile([i, j], [64, 64]).load(Layout::Wgmma));
    }
}

fn main() {}
