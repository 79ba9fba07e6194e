//! S6 for a reducing TMA store: a loop adds a tile into `dq` per turn through `dq_s`, and rewrites
//! `dq_s` in the next turn while the previous turn's reduction may still read it. Underlines `dq_s`.

use tessel::prelude::*;

#[kernel(grid = (M / 64))]
fn accumulate(x: Gmem<f32, M, 64>, dq: GmemMut<f32, 64, 64>) {
    run_scoped(|dq_s: Smem<f32, 64, 64>| {
        for k in 0..M / 64 {
            dq_s.store(x.tile([k, 0], [64, 64]).load(Layout::Strided));
            commit_smem();
            copy_smem_to_gmem(dq_s, dq.tile([0, 0]), reduce = Reduce::Add);
        }
        wait_smem_to_gmem(0);
    });
}

fn main() {}
