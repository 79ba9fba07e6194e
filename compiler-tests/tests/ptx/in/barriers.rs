//! Barriers: an array of two mbarriers completed by TMA, a second array signalled by hand, and the
//! parity each wait tracks.
// expect: mbarrier.init.shared::cta.b64
// expect: fence.mbarrier_init.release.cluster
// expect: mbarrier.try_wait.parity.shared::cta.b64
// expect: mbarrier.arrive.shared::cta.b64
// expect: mbarrier.inval.shared::cta.b64

use tessel::prelude::*;

#[kernel(grid = (M / 32, N / 64))]
fn barriers(x: Gmem<f32, M, N>, z: Gmem<f32, M, N>, out: GmemMut<f32, M, N>) {
    let (i, j) = (program_id(0), program_id(1));
    run_scoped(|in_s: Smem<f32, 2, 32, 64>, loaded: Barrier<1, 2>, done: Barrier<1, 2>| {
        copy_gmem_to_smem(x.tile([i, j]), in_s.at(0), loaded.at(0));
        copy_gmem_to_smem(z.tile([i, j]), in_s.at(1), loaded.at(1));
        for s in 0..2 {
            barrier_wait(loaded.at(s));
            barrier_arrive(done.at(s));
            barrier_wait(done.at(s));
        }
        let sum = in_s.at(0).load(Layout::Strided) + in_s.at(1).load(Layout::Strided);
        out.tile([i, j], [32, 64]).store(sum);
    });
}

fn main() {}
