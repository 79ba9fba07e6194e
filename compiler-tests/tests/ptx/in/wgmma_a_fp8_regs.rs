//! WGMMA with an fp8 A from registers: the Layout::Wgmma array becomes the k32 A fragment through a
//! shuffle within each quad of lanes (ptx/wgmma_a8.rs), as for i8.
// expect: shfl.sync.idx.b32
// expect: prmt.b32
// expect: wgmma.mma_async.sync.aligned.m64n64k32.f32.e4m3.e4m3

use tessel::prelude::*;

#[kernel(grid = (M / 64, N / 64))]
fn wgmma_a_fp8_regs(a: Gmem<f8e4m3, M, K>, bt: Gmem<f8e4m3, N, K>, c: GmemMut<f32, M, N>) {
    let (i, j) = (program_id(0), program_id(1));
    run_scoped(|acc: Acc<f32, 64, 64>, b_s: Smem<f8e4m3, 64, 64, Swizzle64>| {
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
