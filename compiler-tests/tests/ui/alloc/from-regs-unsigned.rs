//! A7: `run_state` with an accumulator made from an unsigned register array.

use tessel::prelude::*;

#[kernel(grid = (1))]
fn unsigned_init(x: Gmem<u32, 64, 64>) {
    let init = x.tile([0, 0], [64, 64]).load(Layout::Wgmma);
    let out = run_state(Acc::from_regs(init), |acc| acc.load());
}

fn main() {}
