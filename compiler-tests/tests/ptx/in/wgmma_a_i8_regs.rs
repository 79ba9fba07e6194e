//! WGMMA with an 8-bit A from registers: the Layout::Wgmma array becomes the k32 A fragment through a
//! shuffle within each quad of lanes (ptx/wgmma_a8.rs), packed before `wgmma.fence`. B is written to
//! swizzled shared memory by ordinary stores and read K-major through `.t()`.
// expect: shfl.sync.idx.b32
// expect: wgmma.mma_async.sync.aligned.m64n64k32.s32.s8.s8

use tessel::prelude::*;

#[kernel(grid = (M / 64, N / 64))]
fn wgmma_a_i8_regs(a: Gmem<i8, M, K>, bt: Gmem<i8, N, K>, c: GmemMut<i32, M, N>) {
    let (i, j) = (program_id(0), program_id(1));
    run_scoped(|acc: Acc<i32, 64, 64>, b_s: Smem<i8, 64, 64, Swizzle64>| {
        for k in 0..K / 64 {
            b_s.store(bt.tile([j, k], [64, 64]).load(Layout::Strided));
            commit_smem();
            let a_r = a.tile([i, k], [64, 64]).load(Layout::Wgmma);
            wgmma(acc, a_r, b_s.t());
            wgmma_wait(0);
        }
        c.tile([i, j], [64, 64]).store(acc.load());
    });
}

fn main() {}
