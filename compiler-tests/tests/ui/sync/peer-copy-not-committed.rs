//! S5 for distributed shared memory: program 1 of the pair sends its partial sums to program 0
//! straight after storing them, with no `commit_smem()` between. Underlines the copy's source.

use tessel::prelude::*;

#[kernel(grid = (2 * (M / 64), N / 64), cluster = (2, 1))]
fn pair_sum(x: Gmem<f32, M, N>, y: GmemMut<f32, M, N>) {
    let (half, i, j) = (cluster_rank(), program_id(0) / 2, program_id(1));
    run_scoped(|part: Smem<f32, 64, 64, Swizzle128>, received: Barrier| {
        let mine = x.tile([i, j], [64, 64]).load(Layout::Wgmma);
        if half == 1 {
            part.store(mine);
            copy_smem_to_peer(part, part, received, 0);
        } else {
            barrier_wait(received);
            y.tile([i, j], [64, 64]).store(mine + part.load(Layout::Wgmma));
        }
    });
}

fn main() {}
