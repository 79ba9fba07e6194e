//! tessel: a constant semaphore index past the end of a static array.

use tessel::prelude::*;

#[kernel(grid = (1), consts(TILES = 4))]
fn past_the_end(sems: GmemMut<u32, TILES>) {
    semaphore_signal(sems, TILES);
}

fn main() {}
