//! Warp-level mma.sync, bf16 -> f32, four warps along M (each warp all of N): fragments loaded
//! straight from global memory, the accumulator carried through the K loop.
// expect: mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32

use tessel::prelude::*;

#[kernel(grid = (M / 64, N / 32))]
fn mma_bf16(a: Gmem<bf16, M, K>, b: Gmem<bf16, K, N>, c: GmemMut<f32, M, N>) {
    let (i, j) = (program_id(0), program_id(1));
    let mut acc = splat::<f32>(0.0, [64, 32]).to_layout(Layout::MmaAcc);
    for k in 0..K / 16 {
        let lhs = a.tile([i, k], [64, 16]).load(Layout::MmaLhs);
        let rhs = b.tile([k, j], [16, 32]).load(Layout::MmaRhs);
        acc = mma(acc, lhs, rhs);
    }
    c.tile([i, j], [64, 32]).store(acc);
}

fn main() {}
