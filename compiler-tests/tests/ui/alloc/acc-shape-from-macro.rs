//! A6 through a `macro_rules!`: the accumulator's N is a `$n:expr` fragment, reported once, at the
//! `60` of the invocation; the family's 64-wide instance compiles.

use tessel::prelude::*;

macro_rules! biased {
    ($name:ident, $n:expr) => {
        #[kernel(grid = (M / 64, N / $n))]
        fn $name(c: GmemMut<f32, M, N>, bias: f32) {
            let (i, j) = (program_id(0), program_id(1));
            run_scoped(|acc: Acc<f32, 64, $n>| {
                acc.store(splat::<f32>(bias, [64, $n]));
                c.tile([i, j], [64, $n]).store(acc.load());
            });
        }
    };
}

biased!(biased_64, 64);
biased!(biased_60, 60);

fn main() {}
