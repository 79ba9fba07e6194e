//! A dtype tessel does not have, passed to a parameter type as a `$t:ty` fragment: reported once,
//! at the `f64` of the invocation; the dimensions the parameter declares (`M`, `K`) report nothing
//! more where the kernel uses them.

use tessel::prelude::*;

macro_rules! row_copy {
    ($name:ident, $t:ty) => {
        #[kernel(grid = (M / 64))]
        fn $name(x: Gmem<$t, M, K>, y: GmemMut<f32, 64, 64>) {
            let i = program_id(0);
            y.tile([0, 0]).store(x.tile([i, K / 64 - 1], [64, 64]).load(Layout::Strided).cast::<f32>());
        }
    };
}

row_copy!(row_copy_f64, f64);

fn main() {}
