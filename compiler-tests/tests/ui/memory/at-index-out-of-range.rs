//! tessel: a constant `.at(s)` past the last pipeline stage.

use tessel::prelude::*;

#[kernel(grid = (1), consts(STAGES = 2))]
fn past_the_end() {
    run_scoped(|a_s: Smem<bf16, STAGES, 64, 64, Swizzle128>| {
        let last = a_s.at(STAGES);
    });
}

fn main() {}
