//! `bitcast` between register classes: f32 <-> u32 a `mov.b32`; bf16 <-> f16 a `mov.b16`; a 16-bit
//! float into an i16 (sign-extended in a `.b32`) a `cvt.s32.s16`, a u16 into an f16 a
//! `cvt.u16.u32`; fp8 (the low byte of a `.b16`) into a u8 a `cvt.u32.u8`, an i8 into an fp8 a
//! `cvt.u16.u32` and a mask of the low byte; i32 <-> u32 nothing; a scalar parameter too.
// expect: mov.b32
// expect: cvt.s32.s16
// expect: cvt.u32.u8
// expect: and.b16

use tessel::prelude::*;

#[kernel(grid = (1))]
fn bitcast(x: Gmem<f32, 64, 64>, y: GmemMut<f32, 64, 64>, z: GmemMut<u16, 64, 64>, w: GmemMut<i8, 64, 64>, s: f32) {
    let v = x.tile([0, 0], [64, 64]).load(Layout::Wgmma);
    let u = (v.bitcast::<u32>() & 2147483647u32).bitcast::<i32>().bitcast::<u32>();
    y.tile([0, 0]).store(u.bitcast::<f32>() + s.bitcast::<i32>().bitcast::<f32>());
    let h = v.cast::<bf16>().bitcast::<f16>().bitcast::<i16>();
    z.tile([0, 0]).store(h.cast::<u16>().bitcast::<f16>().bitcast::<u16>());
    let e = v.cast::<f8e4m3>().bitcast::<u8>().cast::<i8>().bitcast::<f8e5m2>();
    w.tile([0, 0]).store(e.bitcast::<i8>());
}

fn main() {}
