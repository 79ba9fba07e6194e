//! WGMMA with a 16-bit A from registers (Layout::Wgmma, bf16): A is scaled on its way in and packed
//! before `wgmma.fence`. B is written to 128-byte swizzled shared memory by ordinary stores, made
//! visible to the tensor cores by `commit_smem`, and read K-major through `.t()`.
// expect: fence.proxy.async.shared::cta
// expect: wgmma.fence.sync.aligned
// expect: wgmma.mma_async.sync.aligned.m64n64k16.f32.bf16.bf16

use tessel::prelude::*;

#[kernel(grid = (M / 64, N / 64))]
fn wgmma_a_regs(a: Gmem<bf16, M, K>, bt: Gmem<bf16, N, K>, c: GmemMut<f32, M, N>) {
    let (i, j) = (program_id(0), program_id(1));
    run_scoped(|acc: Acc<f32, 64, 64>, b_s: Smem<bf16, 64, 64, Swizzle128>| {
        for k in 0..K / 64 {
            b_s.store(bt.tile([j, k], [64, 64]).load(Layout::Strided));
            commit_smem();
            let a_r = a.tile([i, k], [64, 64]).load(Layout::Wgmma).cast::<f32>() * 2.0;
            wgmma(acc, a_r.cast::<bf16>(), b_s.t());
            wgmma_wait(0);
        }
        c.tile([i, j], [64, 64]).store(acc.load());
    });
}

fn main() {}
