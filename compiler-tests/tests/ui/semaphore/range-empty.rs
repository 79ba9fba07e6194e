//! tessel: a constant range of semaphores that ends where it starts.

use tessel::prelude::*;

#[kernel(grid = (4), consts(W = 2))]
fn signal_none(sems: GmemMut<u32, 4>) {
    semaphore_signal(sems, W..W);
}

fn main() {}
