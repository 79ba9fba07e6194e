//! tessel: a constant semaphore count below 1 (a signal of 0 does nothing, a wait for 0 returns at
//! once, a negative count wraps to nearly 2^32 in the u32 counter).

use tessel::prelude::*;

#[kernel(grid = (S))]
fn counts(sems: GmemMut<u32, S>) {
    let p = program_id(0);
    semaphore_wait(sems, p, 0);
}

fn main() {}
