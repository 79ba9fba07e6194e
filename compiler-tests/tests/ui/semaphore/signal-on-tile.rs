//! tessel: `semaphore_signal` on a tile of the array instead of the array.

use tessel::prelude::*;

#[kernel(grid = (1))]
fn on_a_tile(sems: GmemMut<u32, 4>) {
    semaphore_signal(sems.tile([0]), 1);
}

fn main() {}
