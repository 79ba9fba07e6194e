//! `globaltimer()`: one 64-bit read of the global nanosecond timer per call, where the call is
//! (before and after a tile's copy), their difference a 64-bit subtraction, stored as `i64`.
// expect: mov.u64 %rd
// expect: %globaltimer
// expect: sub.s64

use tessel::prelude::*;

#[kernel(grid = (M / 64))]
fn timed(x: Gmem<f32, M, 64>, y: GmemMut<f32, M, 64>, ns: GmemMut<i64, P, 128>) {
    let i = program_id(0);
    let start = globaltimer();
    y.tile([i, 0], [64, 64]).store(x.tile([i, 0], [64, 64]).load(Layout::Strided) * 2.0);
    let took = globaltimer() - start;
    ns.tile([i, 0], [1, 128]).store(splat::<i64>(took, [1, 128]));
}
