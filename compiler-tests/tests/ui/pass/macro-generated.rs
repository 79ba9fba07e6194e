//! Kernels that a `macro_rules!` writes: the literals it passes on (`$low:literal`) arrive wrapped
//! in invisible groups, in the attribute and in the arguments that must be literals alike.

use tessel::prelude::*;

macro_rules! doubler {
    ($name:ident, $entry:literal, $low:literal, $high:literal, $wait:literal) => {
        #[kernel(grid = (1,), warpgroups = 2, max_registers = $entry)]
        fn $name(x: Gmem<f32, 64, 64>, y: GmemMut<f32, 64, 64>) {
            if warpgroup_id() == 0 {
                set_max_registers($low);
            } else {
                set_max_registers($high);
                y.tile([0, 0]).store(x.tile([0, 0], [64, 64]).load(Layout::Wgmma) * 2.0);
            }
            wgmma_wait($wait);
        }
    };
}

doubler!(doubler_wide, 168, 40, 232, 0);
doubler!(doubler_narrow, 128, 24, 160, 1);

fn main() {}
