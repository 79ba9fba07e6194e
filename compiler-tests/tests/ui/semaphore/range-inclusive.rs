//! tessel: an inclusive range of semaphores (ranges are half-open, as in `for` loops).

use tessel::prelude::*;

#[kernel(grid = (4))]
fn signal_all(sems: GmemMut<u32, 4>) {
    semaphore_signal(sems, 0..=3);
}

fn main() {}
