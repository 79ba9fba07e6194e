//! tessel: semaphores in an `i32` array.

use tessel::prelude::*;

#[kernel(grid = (1))]
fn signed(sems: GmemMut<i32, N>) {
    semaphore_signal(sems, program_id(0));
}

fn main() {}
