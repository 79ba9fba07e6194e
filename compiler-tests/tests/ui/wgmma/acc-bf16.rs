//! E1: WGMMA into a bf16 accumulator (made by `run_state` from bf16 registers; an allocated one would be
//! rejected as A5 already).

use tessel::prelude::*;

#[kernel(grid = (1))]
fn bf16_out(x: Gmem<bf16, 64, 64>) {
    run_scoped(|a_s: Smem<bf16, 64, 64, Swizzle128>, b_s: Smem<bf16, 64, 64, Swizzle128>| {
        let init = x.tile([0, 0], [64, 64]).load(Layout::Wgmma);
        let out = run_state(Acc::from_regs(init), |acc| {
            wgmma(acc, a_s, b_s);
            acc.load()
        });
    });
}

fn main() {}
