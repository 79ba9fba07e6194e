//! Scalars and control flow: parameters, a loop with a branch, a loop-carried scalar, mutable names
//! bound from a tuple with a constant in it and assigned under a branch (each gets a register the
//! assignment moves into), branches on constant switches (only the taken side is emitted, and a
//! known left side of `&&` decides it), a name bound to a same-type cast of a mutable name (its
//! own register, or the assignment after it would change it too), and a strided register load and
//! store of one global tile.
// expect: ld.param.f32
// expect: setp.ge.s32
// expect: bra.uni

use tessel::prelude::*;

#[kernel(grid = (N / 128))]
fn scalars(x: Gmem<f32, N>, y: GmemMut<f32, N>, n: i32, alpha: f32) {
    let i = program_id(0);
    let mut acc = 0.0;
    let mut m = n;
    let before = m as i32;
    m = m + 1;
    acc += (m - before) as f32;
    const TWICE: i32 = 1;
    if TWICE == 0 && n > 0 {
        acc = acc * 3.0;
    }
    if TWICE == 1 && n > 1 {
        acc = acc * 2.0;
    } else {
        acc = acc * 5.0;
    }
    for k in 0..n {
        let (mut lo, hi) = (0, n);
        if k % 3 == 0 {
            lo = k;
        }
        if k % 2 == 0 {
            acc += alpha * ((hi - lo) as f32);
        } else {
            acc = acc * 0.5;
        }
    }
    let v = x.tile([i], [128]).load(Layout::Strided) + acc;
    y.tile([i], [128]).store(v);
}

fn main() {}
