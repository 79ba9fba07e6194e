//! Scalar code: parameters, `consts(..)` and body consts, arithmetic, bit operators, comparisons and
//! `&&`/`||`, casts with `as`, compound assignment, tuples and tuple assignment, nested `for` and
//! `if`/`else if`/`else`, `if` as a value.

use tessel::prelude::*;

#[kernel(grid = ((M + 63) / 64, 2), consts(TILE = 64, HALF = TILE / 2))]
fn scalar_control(x: Gmem<f32, M, N>, y: GmemMut<f32, M, N>, n: i32, alpha: f32, flags: u32) {
    const ROWS: usize = TILE;
    let (i, half) = (program_id(0), program_id(1));
    let programs = num_programs(0);
    let mut acc = 0.0;
    let mut count = 0;
    for r in 0..n {
        for c in half * HALF..(half + 1) * HALF {
            count += 1;
            if (r + c) % 3 == 0 && c != r || r > 100 {
                acc += alpha * (c as f32);
            } else if (flags >> 2 & 1u32) == 1u32 {
                acc -= 1.0;
            } else {
                acc = acc / 2.0;
            }
        }
    }
    let (mut lo, mut hi) = (0, n);
    (lo, hi) = (hi, lo + 1);
    let shift = ((i << 1) | 1) ^ (programs - 1) + if lo > hi { lo - hi } else { 0 };
    let blend = acc + (count as f32) + (shift as f32);
    if i < programs && !(n <= 0) {
        let v = x.tile([i, half], [ROWS, HALF]).load(Layout::Strided) * blend;
        y.tile([i, half], [ROWS, HALF]).store(v);
    }
}

fn main() {}
