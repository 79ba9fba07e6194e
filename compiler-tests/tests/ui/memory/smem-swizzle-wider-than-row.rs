//! E15: a 128-byte swizzle spans 64 bf16, but the buffer's rows are 32 wide.

use tessel::prelude::*;

#[kernel(grid = (1))]
fn narrow_rows() {
    run_scoped(|a_s: Smem<bf16, 64, 32, Swizzle128>| {});
}

fn main() {}
