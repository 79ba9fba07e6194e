//! E11 (dtype): A in registers as f32 (A from registers is 16- or 8-bit).

use tessel::prelude::*;

#[kernel(grid = (1))]
fn a_f32(x: Gmem<f32, 64, 64>) {
    run_scoped(|acc: Acc<f32, 64, 64>, b_s: Smem<tf32, 32, 64, Swizzle128>| {
        let a = x.tile([0, 0], [64, 64]).load(Layout::Wgmma);
        wgmma(acc, a, b_s.t());
    });
}

fn main() {}
