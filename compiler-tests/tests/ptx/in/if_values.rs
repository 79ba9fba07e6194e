//! `if` as a value: each branch leaves its value in the same registers (the first branch's value
//! copied, the second's moved there); a literal branch takes the other branch's `u32`; a register
//! array chosen per program; a constant condition emits only its branch (no `setp` for `FLIP`).
// expect: @!%p
// expect: bra.uni

use tessel::prelude::*;

#[kernel(grid = (N / 128), consts(FLIP = 1))]
fn if_values(x: Gmem<f32, N>, y: GmemMut<f32, N>, n: u32) {
    let i = program_id(0);
    let band = if i % 3 == 0 {
        10
    } else if i % 3 == 1 {
        20
    } else {
        30
    };
    let m = if i > 1 { n } else { 0 };
    let v = x.tile([i], [128]).load(Layout::Strided);
    let w = if i % 2 == 0 {
        v * 2.0
    } else {
        let h = v + 1.0;
        h * h
    };
    let (a, b) = if FLIP == 1 { (band, m) } else { (m as i32, band as u32) };
    y.tile([i], [128]).store(w + ((a as u32 + b) as f32));
}

fn main() {}
