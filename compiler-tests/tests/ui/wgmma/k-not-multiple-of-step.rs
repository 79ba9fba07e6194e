//! E8 (K): bf16 WGMMA consumes K = 16 per instruction; A from registers has K = 24.

use tessel::prelude::*;

#[kernel(grid = (1))]
fn k_24(x: Gmem<bf16, 64, 24>) {
    run_scoped(|acc: Acc<f32, 64, 64>, b_s: Smem<bf16, 24, 64, Swizzle128>| {
        let a = x.tile([0, 0], [64, 24]).load(Layout::Wgmma);
        wgmma(acc, a, b_s);
    });
}

fn main() {}
