//! E9: an fp8 A declared `Transposed` (MN-major); 8-bit operands must be K-major.

use tessel::prelude::*;

#[kernel(grid = (1))]
fn e4m3_a_transposed() {
    run_scoped(
        |acc: Acc<f32, 128, 128>,
         a_s: Smem<f8e4m3, 128, 128, Swizzle128, Transposed>,
         bt_s: Smem<f8e4m3, 128, 128, Swizzle128>| {
            wgmma(acc, a_s, bt_s.t());
        },
    );
}

fn main() {}
