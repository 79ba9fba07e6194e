//! Indexing with `[..]` is not in the language (`.at`, `.slice` and `.tile` are).

use tessel::prelude::*;

#[kernel(grid = (1))]
fn index_buffer() {
    run_scoped(|bufs: Smem<f32, 2, 64, 64>| {
        let first = bufs[0];
    });
}

fn main() {}
