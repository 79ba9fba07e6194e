//! Register stores into and loads from 128-byte swizzled shared buffers (the address XOR of
//! checked on the H200), made visible by `commit_smem`: a 16-bit WGMMA-layout array is stored with
//! `stmatrix`, a strided one element by element.
// expect: stmatrix.sync.aligned.m8n8.x4.shared.b16
// expect: st.shared.b16
// expect: ld.shared.b16
// expect: fence.proxy.async.shared::cta

use tessel::prelude::*;

#[kernel(grid = (M / 64, N / 64))]
fn smem_swizzle(x: Gmem<bf16, M, N>, y: GmemMut<bf16, M, N>) {
    let (i, j) = (program_id(0), program_id(1));
    run_scoped(|buf: Smem<bf16, 64, 64, Swizzle128>, out: Smem<bf16, 64, 64, Swizzle128>| {
        buf.store(x.tile([i, j], [64, 64]).load(Layout::Wgmma));
        commit_smem();
        out.store(buf.load(Layout::Strided));
        commit_smem();
        y.tile([i, j], [64, 64]).store(out.load(Layout::Strided));
    });
}

fn main() {}
