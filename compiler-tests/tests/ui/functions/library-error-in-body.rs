//! A type error inside a library's function (`#[kernel_fns]`): reported at the function's token,
//! as for a module's own function, naming the instances of the kernel that calls it, with a note
//! at the call.

use tessel::prelude::*;

#[kernel_fns]
mod tiles {
    use tessel::prelude::*;

    /// The tile of program `p` in a grid of `tiles_n` columns.
    pub fn tile_of(p: i32, tiles_n: i32) -> (i32, i32) {
        (p / tiles_n, p % tiles_n * 1.5)
    }
}

#[kernels(uses(tiles))]
mod copies {
    use tessel::prelude::*;

    #[kernel(grid = (M / 64 * (N / 64)), instances(f32, bf16))]
    fn copy<T>(x: Gmem<T, M, N>, y: GmemMut<T, M, N>) {
        let (i, j) = tile_of(program_id(0), N / 64);
        y.tile([i, j], [64, 64]).store(x.tile([i, j], [64, 64]).load(Layout::Wgmma));
    }
}

fn main() {}
