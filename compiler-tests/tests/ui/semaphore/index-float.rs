//! tessel: a float semaphore index.

use tessel::prelude::*;

#[kernel(grid = (1))]
fn float_index(sems: GmemMut<u32, 4>) {
    semaphore_signal(sems, 1.0);
}

fn main() {}
