//! tessel: semaphores in a 2-D array.

use tessel::prelude::*;

#[kernel(grid = (1))]
fn two_dims(sems: GmemMut<u32, 4, 4>) {
    semaphore_wait(sems, 0);
}

fn main() {}
