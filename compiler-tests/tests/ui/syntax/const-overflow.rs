//! tessel: a const whose computation overflows i64 (negating `i64::MIN`).

use tessel::prelude::*;

#[kernel(grid = (1), consts(LIMIT = -(-9223372036854775807i64 - 1)))]
fn negated_min(x: GmemMut<i32, 64>) {}

fn main() {}
