//! E16 (second form): a slice of the swizzled (last) dimension that cuts its 64-element column blocks.

use tessel::prelude::*;

#[kernel(grid = (1))]
fn slice_minor() {
    run_scoped(|acc: Acc<f32, 64, 64>, a_s: Smem<bf16, 64, 128, Swizzle128>, b_s: Smem<bf16, 64, 64, Swizzle128>| {
        wgmma(acc, a_s.slice([.., 32..96]), b_s);
    });
}

fn main() {}
