//! tessel: a bool semaphore count.

use tessel::prelude::*;

#[kernel(grid = (1))]
fn bool_count(sems: GmemMut<u32, 4>) {
    semaphore_wait(sems, 0, true);
}

fn main() {}
