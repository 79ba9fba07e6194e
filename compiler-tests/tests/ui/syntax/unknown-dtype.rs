//! A dtype tessel does not have.

use tessel::prelude::*;

#[kernel(grid = (1))]
fn f64_buffer() {
    run_scoped(|buf: Smem<f64, 64, 64>| {});
}

fn main() {}
