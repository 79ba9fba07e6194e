//! tessel: `semaphore_wait` on a read-only (`Gmem`) array: the wait takes its count from it.

use tessel::prelude::*;

#[kernel(grid = (1))]
fn read_only(sems: Gmem<u32, 4>) {
    semaphore_wait(sems, 0);
}

fn main() {}
