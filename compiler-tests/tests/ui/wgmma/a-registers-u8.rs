//! E12: an unsigned A in registers.

use tessel::prelude::*;

#[kernel(grid = (1))]
fn a_u8(x: Gmem<u8, 64, 128>) {
    run_scoped(|acc: Acc<i32, 64, 64>, bt_s: Smem<i8, 64, 128, Swizzle128>| {
        let a = x.tile([0, 0], [64, 128]).load(Layout::Wgmma);
        wgmma(acc, a, bt_s.t());
    });
}

fn main() {}
