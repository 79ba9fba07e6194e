//! Register stores into and loads from a 128-byte swizzled shared buffer (the address XOR of
//! hopper-ptx-facts §4), made visible by `commit_smem`.
// expect: st.shared.b16
// expect: ld.shared.b16
// expect: fence.proxy.async.shared::cta

use tessel::prelude::*;

#[kernel(grid = (M / 64, N / 64))]
fn smem_swizzle(x: Gmem<bf16, M, N>, y: GmemMut<bf16, M, N>) {
    let (i, j) = (program_id(0), program_id(1));
    run_scoped(|buf: Smem<bf16, 64, 64, Swizzle128>| {
        buf.store(x.tile([i, j], [64, 64]).load(Layout::Wgmma));
        commit_smem();
        y.tile([i, j], [64, 64]).store(buf.load(Layout::Strided));
    });
}

fn main() {}
