//! B4: wgmma's first argument is a register array (an accumulator's loaded value), not the
//! accumulator itself.

use tessel::prelude::*;

#[kernel(grid = (1))]
fn regs_as_acc() {
    run_scoped(|acc: Acc<f32, 64, 64>, a_s: Smem<bf16, 64, 64, Swizzle128>, b_s: Smem<bf16, 64, 64, Swizzle128>| {
        let c = acc.load();
        wgmma(c, a_s, b_s);
    });
}

fn main() {}
