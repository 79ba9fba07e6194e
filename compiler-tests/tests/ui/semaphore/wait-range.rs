//! tessel: `semaphore_wait` on a range of semaphores (only a signal may name one).

use tessel::prelude::*;

#[kernel(grid = (4))]
fn wait_for_all(sems: GmemMut<u32, 4>) {
    semaphore_signal(sems, 0..4);
    semaphore_wait(sems, 0..4);
}

fn main() {}
