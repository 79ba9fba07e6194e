//! tessel: `semaphore_signal` without the semaphore's index.

use tessel::prelude::*;

#[kernel(grid = (1))]
fn no_index(sems: GmemMut<u32, 4>) {
    semaphore_signal(sems);
}

fn main() {}
