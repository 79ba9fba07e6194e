//! tessel: a float literal does not become an integer, beside an integer scalar or array, in an
//! operator or in `max`/`min`/`fma` alike (an integer literal beside a float is fine).

use tessel::prelude::*;

#[kernel(grid = (1))]
fn halves(y: GmemMut<f32, 64, 64>, n: i32) {
    let a = n + 0.5;
    let b = max(n, 0.5);
    let c = min(0.5, n);
    let k = iota::<i32>([64, 64], 0) + 0.5;
    let fine = max(iota::<i32>([64, 64], 1).cast::<f32>(), 1) + (a + b + c) as f32;
    y.tile([0, 0]).store(fine + k.cast::<f32>());
}

fn main() {}
