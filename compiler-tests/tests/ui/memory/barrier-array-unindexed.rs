//! tessel: waiting on an array of barriers without picking one with `.at(s)`.

use tessel::prelude::*;

#[kernel(grid = (1))]
fn whole_array() {
    run_scoped(|bars: Barrier<1, 2>| {
        barrier_wait(bars);
    });
}

fn main() {}
