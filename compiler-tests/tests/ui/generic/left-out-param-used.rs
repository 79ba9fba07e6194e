//! `#[when(BIAS == 1)]` leaves `b` out of the instance `k::<0>`, which still reads it: the error is
//! at the use, in that instance only.

use tessel::prelude::*;

#[kernel(grid = (M / 64, N / 64), instances(0, 1))]
fn k<const BIAS: usize>(x: Gmem<f32, M, N>, #[when(BIAS == 1)] b: Gmem<f32, M, N>, y: GmemMut<f32, M, N>) {
    let (i, j) = (program_id(0), program_id(1));
    let t = x.tile([i, j], [64, 64]).load(Layout::Strided);
    y.tile([i, j], [64, 64]).store(t + b.tile([i, j], [64, 64]).load(Layout::Strided));
}

fn main() {}
