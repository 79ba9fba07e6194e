//! Tuple assignment: `(j, k) = (k, j)` takes copies of both values before it assigns either (the
//! hidden `let` of the desugaring gives a value that lives in a mutable name's register its own),
//! so the loop swaps; `(a, b) = (b, a + b)` copies `b` and computes `a + b` before `a` changes.
// expect: add.f32

use tessel::prelude::*;

#[kernel(grid = (N / 128))]
fn tuple_assign(x: Gmem<f32, N>, y: GmemMut<f32, N>, n: i32) {
    let i = program_id(0);
    let mut a = x.tile([i], [128]).load(Layout::Strided);
    let mut b = a;
    let (mut j, mut k) = (i, 1);
    for _t in 0..n {
        (a, b) = (b, a + b);
        (j, k) = (k, j);
    }
    y.tile([i], [128]).store(a + b + ((j - k) as f32));
}

fn main() {}
