//! An error in one instance only: `Acc<T, ..>` is legal for `T = f32` and not for `T = bf16` (A5).
//! The error points at the use of `T` and names the instance.

use tessel::prelude::*;

#[kernel(grid = (1), instances(f32, bf16))]
fn accumulate<T>() {
    run_scoped(|acc: Acc<T, 64, 64>| {});
}

fn main() {}
