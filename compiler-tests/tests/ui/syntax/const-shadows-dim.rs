//! tessel: a const in the body named like a runtime dimension of a parameter.

use tessel::prelude::*;

#[kernel(grid = (M / 64))]
fn two_ks(a: Gmem<bf16, M, K>) {
    const K: usize = 64;
}

fn main() {}
