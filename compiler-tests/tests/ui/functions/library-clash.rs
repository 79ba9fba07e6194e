//! A module that defines a function of the same name as a public function of a library it uses:
//! the module calls its libraries' functions by their names, so each name is one function.

use tessel::prelude::*;

#[kernel_fns]
mod tiles {
    use tessel::prelude::*;

    /// The tile of program `p` in a grid of `tiles_n` columns.
    pub fn tile_of(p: i32, tiles_n: i32) -> (i32, i32) {
        (p / tiles_n, p % tiles_n)
    }
}

#[kernels(uses(tiles))]
mod copies {
    use tessel::prelude::*;

    /// The tile of program `p`, column-major.
    fn tile_of(p: i32, tiles_m: i32) -> (i32, i32) {
        (p % tiles_m, p / tiles_m)
    }

    #[kernel(grid = (M / 64 * (N / 64)))]
    fn copy(x: Gmem<f32, M, N>, y: GmemMut<f32, M, N>) {
        let (i, j) = tile_of(program_id(0), M / 64);
        y.tile([i, j], [64, 64]).store(x.tile([i, j], [64, 64]).load(Layout::Wgmma));
    }
}

fn main() {}
