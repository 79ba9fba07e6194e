//! E8 (M): A of 32 rows (one WGMMA instruction is m64).

use tessel::prelude::*;

#[kernel(grid = (1))]
fn m_32() {
    run_scoped(|acc: Acc<f32, 64, 64>, a_s: Smem<bf16, 32, 64, Swizzle128>, b_s: Smem<bf16, 64, 64, Swizzle128>| {
        wgmma(acc, a_s, b_s);
    });
}

fn main() {}
