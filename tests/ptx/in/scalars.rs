//! Scalars and control flow: parameters, a loop with a branch, a loop-carried scalar, and a
//! strided register load and store of one global tile.
// expect: ld.param.f32
// expect: setp.ge.s32
// expect: bra.uni

use tessel::prelude::*;

#[kernel(grid = (N / 128))]
fn scalars(x: Gmem<f32, N>, y: GmemMut<f32, N>, n: i32, alpha: f32) {
    let i = program_id(0);
    let mut acc = 0.0;
    for k in 0..n {
        if k % 2 == 0 {
            acc += alpha;
        } else {
            acc = acc * 0.5;
        }
    }
    let v = x.tile([i], [128]).load(Layout::Strided) + acc;
    y.tile([i], [128]).store(v);
}

fn main() {}
