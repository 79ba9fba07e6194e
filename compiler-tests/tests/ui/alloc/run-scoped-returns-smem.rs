//! tessel: a shared buffer returned from the `run_scoped` that frees it.

use tessel::prelude::*;

#[kernel(grid = (1))]
fn escaping() {
    let buf = run_scoped(|a_s: Smem<f32, 64, 64>| a_s);
}

fn main() {}
