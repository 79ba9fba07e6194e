//! tessel: slice bounds are known at compile time; a mutable `let` is not.

use tessel::prelude::*;

#[kernel(grid = (1,))]
fn halves(a: Gmem<bf16, 64, 64>, b: Gmem<bf16, 64, 64>, c: GmemMut<f32, 64, 64>) {
    run_scoped(|acc: Acc<f32, 64, 128>, a_s: Smem<bf16, 64, 64, Swizzle128>, b_s: Smem<bf16, 64, 64, Swizzle128>, bar: Barrier<2>| {
        copy_gmem_to_smem(a.tile([0, 0]), a_s, bar);
        copy_gmem_to_smem(b.tile([0, 0]), b_s, bar);
        barrier_wait(bar);
        let mut start = 0;
        start = start + 64;
        wgmma(acc.slice([.., start..128]), a_s, b_s);
        wgmma_wait(0);
        c.tile([0, 0]).store(acc.slice([.., 64..128]).load());
    });
}

fn main() {}
