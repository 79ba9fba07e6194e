//! tessel: a global array's static dimension passed as a `$rows:expr` fragment is positive;
//! reported once, at the `0` of the invocation.

use tessel::prelude::*;

macro_rules! strip {
    ($name:ident, $t:ty, $rows:expr) => {
        #[kernel(grid = (1))]
        fn $name(x: Gmem<$t, $rows, 64>, y: GmemMut<$t, $rows, 64>) {
            y.tile([0, 0], [$rows, 64]).store(x.tile([0, 0], [$rows, 64]).load(Layout::Strided));
        }
    };
}

strip!(strip_64, f32, 64);
strip!(strip_empty, f32, 0);

fn main() {}
