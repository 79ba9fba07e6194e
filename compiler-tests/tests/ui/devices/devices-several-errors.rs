//! tessel: the checks of a kernel of several devices, reported together: a rank outside the group,
//! `remote(..)` of an array that is not `#[peers]`, and a wait on another device's counter.

use tessel::prelude::*;

#[kernel(grid = (M / 64), devices = 2)]
fn ring(x: Gmem<f32, M, 64>, buf: GmemMut<f32, M, 64>, #[peers] sems: GmemMut<u32, T>) {
    let i = program_id(0);
    remote(buf, 1).tile([i, 0], [64, 64]).store(x.tile([i, 0], [64, 64]).load(Layout::Strided));
    semaphore_signal(remote(sems, 2), i);
    semaphore_wait(remote(sems, 0), i);
}

fn main() {}
