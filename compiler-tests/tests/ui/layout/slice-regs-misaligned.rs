//! A window of a WGMMA-layout array that cuts a thread's 8-column block.

use tessel::prelude::*;

#[kernel(grid = (1,))]
fn slice_misaligned(x: Gmem<bf16, 64, 64>, y: GmemMut<bf16, 64, 60>) {
    let v = x.tile([0, 0], [64, 64]).load(Layout::Wgmma);
    y.tile([0, 0], [64, 60]).store(v.slice([.., 4..64]));
}

fn main() {}
