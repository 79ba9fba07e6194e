//! Warp-level mma.sync, e4m3 -> f32 (PTX 8.4, sm_89+), one warp along M and four along N.
// expect: .version 8.4
// expect: mma.sync.aligned.m16n8k32.row.col.f32.e4m3.e4m3.f32

use tessel::prelude::*;

#[kernel(grid = (M / 16, N / 32))]
fn mma_fp8(a: Gmem<f8e4m3, M, K>, b: Gmem<f8e4m3, K, N>, c: GmemMut<f32, M, N>) {
    let (i, j) = (program_id(0), program_id(1));
    let mut acc = splat::<f32>(0.0, [16, 32]).to_layout(Layout::MmaAcc);
    for k in 0..K / 32 {
        let lhs = a.tile([i, k], [16, 32]).load(Layout::MmaLhs);
        let rhs = b.tile([k, j], [32, 32]).load(Layout::MmaRhs);
        acc = mma(acc, lhs, rhs);
    }
    c.tile([i, j], [16, 32]).store(acc);
}

fn main() {}
