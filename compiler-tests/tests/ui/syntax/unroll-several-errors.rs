//! tessel: an unrolled loop has bounds known when the kernel is read (not a scalar parameter, nor a
//! runtime dimension), at most 64 iterations, a counter that is neither rebound nor assigned, and
//! `#[unroll]` is the only attribute a loop takes. An error in the body is reported once, not once
//! per copy, and also when the bounds are wrong.

use tessel::prelude::*;

#[kernel(grid = (1))]
fn unrolled(x: Gmem<f32, 64, K>, n: i32) {
    #[unroll]
    for q in 0..n {
        let early = 1.5 + n;
    }
    #[unroll]
    for q in 0..100 {}
    #[unroll]
    for q in 0..K / 64 {}
    #[unroll]
    for q in 0..2 {
        let q = 3;
    }
    #[unroll]
    for q in 0..2 {
        q = 1;
    }
    #[inline]
    for k in 0..2 {}
    #[unroll]
    for q in 0..3 {
        let bad = x.tile([0, 0], [64, 64]).load(Layout::Wgmma) + true;
    }
}

fn main() {}
