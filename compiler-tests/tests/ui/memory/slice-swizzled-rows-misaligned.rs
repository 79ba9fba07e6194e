//! tessel: a window of a swizzled buffer that starts between swizzle atoms (every 8 rows).

use tessel::prelude::*;

#[kernel(grid = (1))]
fn misaligned_rows() {
    run_scoped(|acc: Acc<f32, 64, 64>, a_s: Smem<bf16, 128, 64, Swizzle128>, b_s: Smem<bf16, 64, 64, Swizzle128>| {
        wgmma(acc, a_s.slice([4..68, ..]), b_s);
    });
}

fn main() {}
