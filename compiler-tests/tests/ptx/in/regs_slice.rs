//! Windows of a WGMMA-layout register array (`.slice`): no instruction of their own, the window's
//! registers are the array's; a 64 x 32 window stored through `stmatrix` (whose lane coordinates
//! come from `%tid.x` read at the store) and a 64 x 8 one stored from registers.
// expect: stmatrix.sync.aligned.m8n8.x4.shared.b16
// expect: st.global.b32

use tessel::prelude::*;

#[kernel(grid = (M / 64,))]
fn regs_slice(x: Gmem<bf16, M, 64>, y: GmemMut<bf16, M, 32>, z: GmemMut<bf16, M, 8>) {
    let i = program_id(0);
    let v = x.tile([i, 0], [64, 64]).load(Layout::Wgmma);
    run_scoped(|s: Smem<bf16, 64, 32, Swizzle64>| {
        s.store(v.slice([.., 32..64]));
        commit_smem();
        copy_smem_to_gmem(s, y.tile([i, 0]));
        wait_smem_to_gmem(0);
    });
    z.tile([i, 0], [64, 8]).store(v.slice([.., 8..16]));
}

fn main() {}
