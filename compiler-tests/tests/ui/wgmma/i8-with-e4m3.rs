//! E5: i8 and fp8 operands do not mix (only e4m3 and e5m2 do).

use tessel::prelude::*;

#[kernel(grid = (1))]
fn i8_with_e4m3() {
    run_scoped(|acc: Acc<f32, 64, 64>, a_s: Smem<f8e4m3, 64, 128, Swizzle128>, b_s: Smem<i8, 64, 128, Swizzle128>| {
        wgmma(acc, a_s, b_s.t());
    });
}

fn main() {}
