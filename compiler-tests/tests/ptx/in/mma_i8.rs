//! Warp-level mma.sync, i8 -> i32, two warps along M and two along N: each warp picks its B
//! column block in a warp-uniform branch; bytes are packed with `prmt`.
// expect: mma.sync.aligned.m16n8k32.row.col.s32.s8.s8.s32
// expect: prmt.b32

use tessel::prelude::*;

#[kernel(grid = (M / 32, N / 32))]
fn mma_i8(a: Gmem<i8, M, K>, b: Gmem<i8, K, N>, c: GmemMut<i32, M, N>) {
    let (i, j) = (program_id(0), program_id(1));
    let mut acc = splat::<i32>(0, [32, 32]).to_layout(Layout::MmaAcc);
    for k in 0..K / 32 {
        let lhs = a.tile([i, k], [32, 32]).load(Layout::MmaLhs);
        let rhs = b.tile([k, j], [32, 32]).load(Layout::MmaRhs);
        acc = mma(acc, lhs, rhs);
    }
    c.tile([i, j], [32, 32]).store(acc);
}

fn main() {}
