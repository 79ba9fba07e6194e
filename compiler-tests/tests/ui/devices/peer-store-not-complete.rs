//! tessel (S8): a TMA store into the next device's memory, waited for only to read shared memory,
//! then published by a signal: the next device may see the count before the data.

use tessel::prelude::*;

#[kernel(grid = (M / 64), devices = 2)]
fn push(x: Gmem<f32, M, 64>, #[peers] buf: GmemMut<f32, M, 64>, #[peers] ready: GmemMut<u32, T>) {
    let i = program_id(0);
    let next = (device_id() + 1) % 2;
    run_scoped(|t: Smem<f32, 64, 64>, bar: Barrier| {
        copy_gmem_to_smem(x.tile([i, 0]), t, bar);
        barrier_wait(bar);
        copy_smem_to_gmem(t, remote(buf, next).tile([i, 0]));
        wait_smem_to_gmem(0);
        semaphore_signal(remote(ready, next), i);
        semaphore_wait(ready, i);
    });
}

fn main() {}
