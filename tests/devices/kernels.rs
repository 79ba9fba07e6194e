//! Collective kernels of several devices, which `interp` runs on simulated devices and `gpu` on a
//! group of GPUs, with their f64 references: each is generic over the group's size `W`
//! (`devices = W`), compiled for 1, 2 and 4 devices.
#![allow(dead_code)]

use tessel::prelude::*;

/// All-gather around a ring, by TMA stores into the next device's memory: device `d`'s shard of
/// `x` (tile `i` of program `i`) ends at rows `d * M` of every device's `out`.
///
/// Each program copies its tile into its own `out` and into the next device's, then forwards,
/// `W - 2` times, the tile it receives from the previous device: it waits on its counter `i`
/// (one signal a tile), loads the tile the previous device wrote into its `out` (a TMA load), and
/// stores it into the next device's. Each store is complete (`complete = true`) before the
/// signal that publishes it. Every device receives `W - 1` tiles per program and waits `W - 1`
/// times, so `ready` ends at zero.
#[kernel(grid = (M / 64), devices = W, instances(1, 2, 4))]
pub fn ring_all_gather<const W: usize>(
    x: Gmem<f32, M, 64>,
    #[peers] out: GmemMut<f32, S, 64>,
    #[peers] ready: GmemMut<u32, T>,
) {
    let i = program_id(0);
    let me = device_id();
    let next = (me + 1) % W;
    let tiles = num_programs(0);
    run_scoped(|t: Smem<f32, 64, 64>, bar: Barrier| {
        copy_gmem_to_smem(x.tile([i, 0]), t, bar);
        barrier_wait(bar);
        copy_smem_to_gmem(t, out.tile([me * tiles + i, 0]));
        if W > 1 {
            copy_smem_to_gmem(t, remote(out, next).tile([me * tiles + i, 0]));
            wait_smem_to_gmem(0, complete = true);
            semaphore_signal(remote(ready, next), i);
        }
        for step in 1..W - 1 {
            let from = (me + W - step) % W;
            semaphore_wait(ready, i);
            copy_gmem_to_smem(out.tile([from * tiles + i, 0]), t, bar);
            barrier_wait(bar);
            copy_smem_to_gmem(t, remote(out, next).tile([from * tiles + i, 0]));
            wait_smem_to_gmem(0, complete = true);
            semaphore_signal(remote(ready, next), i);
        }
        if W > 1 {
            semaphore_wait(ready, i);
        }
        wait_smem_to_gmem(0);
    });
}

/// Reduce-scatter by register stores: device `d` ends with rows `d * M` of the sum over devices of
/// `x` (each device's `x` holds `W` chunks of `M` rows) in `y`.
///
/// Each program stores its tile of every other device's chunk into that device's `parts` (rows
/// `d * M` for the sender `d`) with register stores, and signals the device's counter `i` after
/// each (a system-scope release, which publishes the stores); then it waits for the `W - 1`
/// signals of its own counter, and sums its own tile and the received ones.
#[kernel(grid = (M / 64), devices = W, instances(1, 2, 4))]
pub fn reduce_scatter<const W: usize>(
    x: Gmem<f32, S, 64>,
    #[peers] parts: GmemMut<f32, P, 64>,
    #[peers] ready: GmemMut<u32, T>,
    y: GmemMut<f32, M, 64>,
) {
    let i = program_id(0);
    let me = device_id();
    let tiles = num_programs(0);
    for k in 1..W {
        let to = (me + k) % W;
        let v = x.tile([to * tiles + i, 0], [64, 64]).load(Layout::Strided);
        remote(parts, to).tile([me * tiles + i, 0], [64, 64]).store(v);
        semaphore_signal(remote(ready, to), i);
    }
    let mut sum = x.tile([me * tiles + i, 0], [64, 64]).load(Layout::Strided);
    if W > 1 {
        semaphore_wait(ready, i, W - 1);
    }
    for k in 1..W {
        let from = (me + W - k) % W;
        sum = sum + parts.tile([from * tiles + i, 0], [64, 64]).load(Layout::Strided);
    }
    y.tile([i, 0], [64, 64]).store(sum);
}

/// `ring_all_gather`'s result on every device: the shards one after another.
pub fn all_gather_ref(shards: &[Vec<f64>]) -> Vec<f64> {
    shards.concat()
}

/// `reduce_scatter`'s result on device `d`: chunk `d` (of `rows` rows of 64) of the devices' sum.
pub fn reduce_scatter_ref(xs: &[Vec<f64>], d: usize, rows: usize) -> Vec<f64> {
    let chunk = rows * 64;
    (0..chunk).map(|e| xs.iter().map(|x| x[d * chunk + e]).sum()).collect()
}

/// Device 0 stores `x` into device 1's `buf` with a TMA store and signals device 1, which copies
/// `buf` to its `y`. The store is complete before the signal where `complete` is 1; else only its
/// read of shared memory is waited for, and device 1 may read `buf` before the data lands (the
/// branch on a run-time value hides this from the compile-time check, not from the interpreter).
#[kernel(grid = (1), devices = 2)]
pub fn publish_tma_store(
    x: Gmem<f32, 64, 64>,
    #[peers] buf: GmemMut<f32, 64, 64>,
    #[peers] ready: GmemMut<u32, 1>,
    y: GmemMut<f32, 64, 64>,
    complete: i32,
) {
    run_scoped(|t: Smem<f32, 64, 64>, bar: Barrier| {
        if device_id() == 0 {
            copy_gmem_to_smem(x.tile([0, 0]), t, bar);
            barrier_wait(bar);
            copy_smem_to_gmem(t, remote(buf, 1).tile([0, 0]));
            if complete == 1 {
                wait_smem_to_gmem(0, complete = true);
            } else {
                wait_smem_to_gmem(0);
            }
            semaphore_signal(remote(ready, 1), 0);
        } else {
            semaphore_wait(ready, 0);
            y.tile([0, 0], [64, 64]).store(buf.tile([0, 0], [64, 64]).load(Layout::Strided));
        }
    });
}

/// Device 0 signals device 1 before it stores into device 1's `buf`: the signal publishes nothing,
/// and device 1's read of `buf` races with the store.
#[kernel(grid = (1), devices = 2)]
pub fn signal_before_store(
    x: Gmem<f32, 64, 64>,
    #[peers] buf: GmemMut<f32, 64, 64>,
    #[peers] ready: GmemMut<u32, 1>,
    y: GmemMut<f32, 64, 64>,
) {
    if device_id() == 0 {
        semaphore_signal(remote(ready, 1), 0);
        remote(buf, 1).tile([0, 0], [64, 64]).store(x.tile([0, 0], [64, 64]).load(Layout::Strided));
    } else {
        semaphore_wait(ready, 0);
        y.tile([0, 0], [64, 64]).store(buf.tile([0, 0], [64, 64]).load(Layout::Strided));
    }
}

/// Each device reads the next one's `buf`, by a rank computed at run time: `device_id() + 1`,
/// outside the group on the last device.
#[kernel(grid = (1), devices = 2)]
pub fn next_without_wrap(#[peers] buf: Gmem<f32, 64, 64>, y: GmemMut<f32, 64, 64>) {
    y.tile([0, 0], [64, 64]).store(remote(buf, device_id() + 1).tile([0, 0], [64, 64]).load(Layout::Strided));
}
