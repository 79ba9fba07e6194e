//! tessel: every problem of a semaphore call reported together: the array is read-only and holds
//! `i32`, and the index is a float; and in another call, a negative count.

use tessel::prelude::*;

#[kernel(grid = (1))]
fn everything_wrong(sems: Gmem<i32, 4>) {
    semaphore_wait(sems, 0.5);
}

#[kernel(grid = (1))]
fn negative_count(sems: GmemMut<u32, 4>) {
    semaphore_signal(sems, 0, 1);
    semaphore_wait(sems, 0, -1);
}

fn main() {}
