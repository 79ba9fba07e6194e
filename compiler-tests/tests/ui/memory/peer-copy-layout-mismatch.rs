//! tessel: a copy into a peer's shared memory copies bytes, so the destination must be laid out
//! as the source is (here: bf16 into an f32 buffer).

use tessel::prelude::*;

#[kernel(grid = (M / 64), cluster = (2,))]
fn mixed_up(c: GmemMut<f32, M, 128>) {
    let i = program_id(0);
    run_scoped(|half: Smem<bf16, 64, 128>, part: Smem<f32, 64, 128>, got: Barrier| {
        if cluster_rank() == 1 {
            half.store(splat::<bf16>(1.0, [64, 128]));
            commit_smem();
            copy_smem_to_peer(half, part, got, 0);
        } else {
            barrier_wait(got);
            c.tile([i, 0]).store(part.load(Layout::Wgmma));
        }
    });
}

fn main() {}
