//! tessel: `semaphore_wait` on another device's counter: a device waits on its own counters, which
//! the others signal.

use tessel::prelude::*;

#[kernel(grid = (1), devices = 2)]
fn handshake(#[peers] sems: GmemMut<u32, 2>) {
    let other = 1 - device_id();
    semaphore_signal(remote(sems, other), 0);
    semaphore_wait(remote(sems, other), 0);
}

fn main() {}
