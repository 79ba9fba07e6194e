//! SEED 003 through a `macro_rules!`: the value stored into the accumulator is an `$init:expr`
//! fragment, underlined whole where the invocation writes it.

use tessel::prelude::*;

macro_rules! seeded {
    ($name:ident, $init:expr) => {
        #[kernel(grid = (1))]
        fn $name(x: Gmem<bf16, 64, 64>, y: GmemMut<f32, 64, 64>) {
            run_scoped(|acc: Acc<f32, 64, 64>| {
                acc.store($init);
                y.tile([0, 0]).store(acc.load());
            });
        }
    };
}

seeded!(seeded_bf16, x.tile([0, 0], [64, 64]).load(Layout::Wgmma) * 2.0);

fn main() {}
