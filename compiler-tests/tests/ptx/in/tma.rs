//! TMA: a tile loaded into swizzled shared memory on a barrier, scaled in registers, and stored back
//! with a bulk tensor store.
// expect: cp.async.bulk.tensor.2d.shared::cluster.global.mbarrier::complete_tx::bytes
// expect: mbarrier.arrive.expect_tx.shared::cta.b64
// expect: cp.async.bulk.tensor.2d.global.shared::cta.bulk_group
// expect: cp.async.bulk.commit_group
// expect: cp.async.bulk.wait_group.read 0

use tessel::prelude::*;

#[kernel(grid = (M / 64, N / 64))]
fn tma(x: Gmem<bf16, M, N>, y: GmemMut<bf16, M, N>, alpha: f32) {
    let (i, j) = (program_id(0), program_id(1));
    run_scoped(|x_s: Smem<bf16, 64, 64, Swizzle128>, y_s: Smem<bf16, 64, 64, Swizzle128>, bar: Barrier| {
        copy_gmem_to_smem(x.tile([i, j]), x_s, bar);
        barrier_wait(bar);
        let v = x_s.load(Layout::Wgmma).cast::<f32>() * alpha;
        y_s.store(v.cast::<bf16>());
        commit_smem();
        copy_smem_to_gmem(y_s, y.tile([i, j]));
        wait_smem_to_gmem(0);
    });
}

fn main() {}
