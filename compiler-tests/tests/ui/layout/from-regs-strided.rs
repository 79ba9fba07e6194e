//! SEED 004: an accumulator initialised from a register array in `Layout::Strided`.

use tessel::prelude::*;

#[kernel(grid = (1))]
fn init_strided(bias: Gmem<f32, 64, 64>) {
    let init = bias.tile([0, 0], [64, 64]).load(Layout::Strided);
    let out = run_state(Acc::from_regs(init), |acc| acc.load());
}

fn main() {}
