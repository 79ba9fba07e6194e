//! tessel: a const is an `i32` where the kernel computes with it, and `i64::MIN` does not fit one.

use tessel::prelude::*;

#[kernel(grid = (1), consts(MIN = -9223372036854775807i64 - 1))]
fn negated_min(x: GmemMut<i32, 64>) {
    x.tile([0], [64]).store(splat::<i32>(-MIN, [64]));
}

fn main() {}
