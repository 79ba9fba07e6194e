//! E8 (N, integer): N = 40 is a multiple of 8, but integer WGMMA has no n40 (PTX lists 8, 16, 24,
//! 32, then multiples of 16). Pallas misses this one.

use tessel::prelude::*;

#[kernel(grid = (1))]
fn n_40() {
    run_scoped(|acc: Acc<i32, 64, 40>, a_s: Smem<i8, 64, 128, Swizzle128>, bt_s: Smem<i8, 40, 128, Swizzle128>| {
        wgmma(acc, a_s, bt_s.t());
    });
}

fn main() {}
