//! `.transpose(..)` with a list that is not a permutation (dimension 0 twice, 2 missing): said so,
//! rather than E16's "Can't transpose the swizzled dimension".

use tessel::prelude::*;

#[kernel(grid = (1))]
fn repeat_dim() {
    run_scoped(|a_s: Smem<bf16, 64, 2, 64, Swizzle128>| {
        let view = a_s.transpose([0, 0, 1]);
    });
}

fn main() {}
