//! tessel: a constant range of semaphores that runs past the end of a static array.

use tessel::prelude::*;

#[kernel(grid = (4), consts(TILES = 4))]
fn past_the_end(sems: GmemMut<u32, TILES>) {
    semaphore_signal(sems, 1..TILES + 1);
}

fn main() {}
