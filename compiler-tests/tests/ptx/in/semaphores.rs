//! Global-memory semaphores: a program stores a tile and signals the next program, which waits for
//! it with a count of 2 (the default count of 1 in the signal, twice) and reads the tile; then
//! groups of programs that each signal the whole group's semaphores (a range: one fence, then a
//! relaxed add to each) and wait for all of them (no data: the PTX of the signal and the wait).
// expect: red.release.gpu.global.add.u32
// expect: fence.acq_rel.gpu
// expect: red.relaxed.gpu.global.add.u32
// expect: ld.acquire.gpu.global.u32
// expect: nanosleep.u32
// expect: atom.acquire.gpu.global.cas.b32
// expect: mad.wide.u32

use tessel::prelude::*;

#[kernel(grid = (S))]
fn semaphores(x: GmemMut<f32, R, 64>, sems: GmemMut<u32, S>) {
    let p = program_id(0);
    let mut v = x.tile([p, 0], [64, 64]).load(Layout::Strided);
    if p > 0 {
        semaphore_wait(sems, p - 1, 2);
        v = v + x.tile([p - 1, 0], [64, 64]).load(Layout::Strided);
    }
    x.tile([p, 0]).store(v);
    semaphore_signal(sems, p);
    semaphore_signal(sems, p);
}

#[kernel(grid = (S), consts(W = 4))]
fn group_exchange(sems: GmemMut<u32, S>) {
    let p = program_id(0);
    let first = p / W * W;
    semaphore_signal(sems, first..first + W, 3);
    semaphore_wait(sems, p, 3 * W);
}

fn main() {}
