//! tessel: `.at(s)` on a 1-D buffer, which has no stage dimension to select along.

use tessel::prelude::*;

#[kernel(grid = (1))]
fn no_stages() {
    run_scoped(|v_s: Smem<f32, 128>| {
        let stage = v_s.at(0);
    });
}

fn main() {}
