//! E8 (N): B of 272 columns (at most 256 per instruction).

use tessel::prelude::*;

#[kernel(grid = (1))]
fn n_272() {
    run_scoped(|acc: Acc<f32, 64, 272>, a_s: Smem<bf16, 64, 64, Swizzle128>, bt_s: Smem<bf16, 272, 64, Swizzle128>| {
        wgmma(acc, a_s, bt_s.t());
    });
}

fn main() {}
