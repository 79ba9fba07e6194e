//! Warp-level mma.sync, i4 -> i32 (m16n8k64): nibbles packed with `bfi`.
// expect: mma.sync.aligned.m16n8k64.row.col.s32.s4.s4.s32
// expect: bfi.b32

use tessel::prelude::*;

#[kernel(grid = (M / 64, N / 8))]
fn mma_i4(a: Gmem<i4, M, K>, b: Gmem<i4, K, N>, c: GmemMut<i32, M, N>) {
    let (i, j) = (program_id(0), program_id(1));
    let mut acc = splat::<i32>(0, [64, 8]).to_layout(Layout::MmaAcc);
    for k in 0..K / 64 {
        let lhs = a.tile([i, k], [64, 64]).load(Layout::MmaLhs);
        let rhs = b.tile([k, j], [64, 8]).load(Layout::MmaRhs);
        acc = mma(acc, lhs, rhs);
    }
    c.tile([i, j], [64, 8]).store(acc);
}

fn main() {}
