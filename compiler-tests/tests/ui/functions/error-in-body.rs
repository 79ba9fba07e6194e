//! A type error inside a kernel function: reported once, at the function's token, with a note at
//! each call that instantiated it (one for the copies of an unrolled loop's body, which are calls
//! at one place).

use tessel::prelude::*;

#[kernels]
mod tiles {
    use tessel::prelude::*;

    /// The tile of program `p` in a grid of `tiles_n` columns.
    fn tile_of(p: i32, tiles_n: i32) -> (i32, i32) {
        (p / tiles_n, p % tiles_n * 1.5)
    }

    #[kernel(grid = (M / 64 * (N / 64)))]
    fn copy(x: Gmem<f32, M, N>, y: GmemMut<f32, M, N>) {
        let (i, j) = tile_of(program_id(0), N / 64);
        y.tile([i, j], [64, 64]).store(x.tile([i, j], [64, 64]).load(Layout::Wgmma));
        #[unroll]
        for q in 0..2 {
            let (qi, qj) = tile_of(q, 2);
            y.tile([qi, qj], [64, 64]).store(x.tile([qi, qj], [64, 64]).load(Layout::Wgmma));
        }
    }
}

fn main() {}
