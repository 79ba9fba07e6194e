//! B4: wgmma's first argument is a shared-memory buffer, not an accumulator.

use tessel::prelude::*;

#[kernel(grid = (1))]
fn smem_as_acc() {
    run_scoped(|c_s: Smem<f32, 64, 64>, a_s: Smem<bf16, 64, 64, Swizzle128>, b_s: Smem<bf16, 64, 64, Swizzle128>| {
        wgmma(c_s, a_s, b_s);
    });
}

fn main() {}
