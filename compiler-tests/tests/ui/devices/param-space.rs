//! tessel: TMA copies of four peers' tiles on a group of 72 devices: each needs a tensor map per
//! device (128 bytes each), more than the 32764 bytes of parameters an entry takes.

use tessel::prelude::*;

#[kernel(grid = (M / 64), devices = 72)]
fn gather(
    #[peers] a: Gmem<f32, M, 64>,
    #[peers] b: Gmem<f32, M, 64>,
    #[peers] c: Gmem<f32, M, 64>,
    #[peers] d: Gmem<f32, M, 64>,
    y: GmemMut<f32, M, 64>,
) {
    let i = program_id(0);
    let peer = (device_id() + 1) % 72;
    run_scoped(|t: Smem<f32, 4, 64, 64>, bar: Barrier<4>| {
        copy_gmem_to_smem(remote(a, peer).tile([i, 0]), t.at(0), bar);
        copy_gmem_to_smem(remote(b, peer).tile([i, 0]), t.at(1), bar);
        copy_gmem_to_smem(remote(c, peer).tile([i, 0]), t.at(2), bar);
        copy_gmem_to_smem(remote(d, peer).tile([i, 0]), t.at(3), bar);
        barrier_wait(bar);
        let s = t.at(0).load(Layout::Strided) + t.at(1).load(Layout::Strided);
        let s = s + t.at(2).load(Layout::Strided) + t.at(3).load(Layout::Strided);
        y.tile([i, 0], [64, 64]).store(s);
    });
}

fn main() {}
