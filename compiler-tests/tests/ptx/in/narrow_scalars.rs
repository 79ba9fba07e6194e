//! Scalars narrower than f32 (bf16, f16, fp8) and tf32 with untyped float literals: arithmetic,
//! comparisons, `max`/`min`, compound assignment and a math function run in f32, each operand in
//! the operation's dtype first (an untyped literal written in that dtype, rounded once: 1 + 2^-8 +
//! 2^-30 is bf16 0x3F81, where rounding through f32 would give the tie's even 0x3F80), the result
//! rounded back; fp8 negation flips bit 7; tf32 results are rounded with `cvt.rna.tf32.f32` into a
//! `.b32`; `!` on an i64 is 64 bits wide.
// expect: 0x3F81;
// expect: xor.b16
// expect: 0x0080;
// expect: cvt.rna.tf32.f32 %r
// expect: not.b64

use tessel::prelude::*;

#[kernel(grid = (N / 64))]
fn narrow_scalars(y: GmemMut<f32, N>, x: f32, bits: i64) {
    let i = program_id(0);
    let s = x as bf16;
    let mut acc = s * 2.0 + (1.0 - s) + max(s, 0.5) + s * 1.0039062509313226;
    acc *= 0.25;
    if acc > 2.0 || -1.0 == acc {
        acc = exp2(acc * 0.5 + 1.0);
    }
    let h = min(-1.5, x as f16) / 3.0;
    let e = -(x as f8e4m3) * 2.0 + 0.5;
    let mut t = (x as tf32) * 3.0 - 0.1;
    if e < 1.0 && h >= -2.0 {
        t = max(t, 0.25);
    }
    let total = (acc as f32) + (h as f32) + (e as f32) + (t as f32) + ((!bits) as f32);
    y.tile([i], [64]).store(splat::<f32>(total, [64]));
}

fn main() {}
