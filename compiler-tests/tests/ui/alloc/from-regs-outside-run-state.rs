//! A8: a preinitialised accumulator (`Acc::from_regs`) where only `run_state` may take one.

use tessel::prelude::*;

#[kernel(grid = (1))]
fn preinit_outside(a: Gmem<bf16, 64, 64>) {
    let init = splat::<f32>(0.0, [64, 64]).to_layout(Layout::Wgmma);
    run_scoped(|a_s: Smem<bf16, 64, 64, Swizzle128>, b_s: Smem<bf16, 64, 64, Swizzle128>| {
        wgmma(Acc::from_regs(init), a_s, b_s);
    });
}

fn main() {}
