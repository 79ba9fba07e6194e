//! A multicast flag that depends on a runtime value: it decides the instruction, so it must be
//! known when the kernel is read.

use tessel::prelude::*;

#[kernel(grid = (M / 64, N / 64), cluster = (CLUSTER,), instances(2))]
fn k<const CLUSTER: usize>(a: Gmem<bf16, M, K>, c: GmemMut<f32, M, N>, share: i32) {
    let (i, j) = (program_id(0), program_id(1));
    run_scoped(|a_s: Smem<bf16, 64, 64, Swizzle128>, bar: Barrier| {
        copy_gmem_to_smem(a.tile([i, 0]), a_s, bar, multicast = CLUSTER > 1 && share > 0);
        barrier_wait(bar);
        c.tile([i, j], [64, 64]).store(a_s.load(Layout::Strided).cast::<f32>());
    });
}

fn main() {}
