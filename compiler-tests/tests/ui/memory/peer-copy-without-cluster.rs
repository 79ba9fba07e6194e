//! tessel: a copy into a peer's shared memory in a kernel without a cluster.

use tessel::prelude::*;

#[kernel(grid = (M / 64))]
fn no_peer(c: GmemMut<f32, M, 128>) {
    let i = program_id(0);
    run_scoped(|part: Smem<f32, 64, 128>, got: Barrier| {
        part.store(splat::<f32>(1.0, [64, 128]));
        commit_smem();
        copy_smem_to_peer(part, part, got, 0);
        barrier_wait(got);
        c.tile([i, 0]).store(part.load(Layout::Wgmma));
    });
}

fn main() {}
