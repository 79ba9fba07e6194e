//! E15: an explicit tile whose trailing dimension is not the swizzle's width (64 bf16 for 128 bytes).

use tessel::prelude::*;

#[kernel(grid = (1))]
fn tile_width() {
    run_scoped(|a_s: Smem<bf16, 64, 128, Swizzle128, Tiled<8, 32>>| {});
}

fn main() {}
