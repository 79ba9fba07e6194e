//! Integers narrower than 32 bits live sign- or zero-extended in `.b32` registers and wrap at their
//! width, as in the interpreter (Rust's wrapping arithmetic and `as`): an i32 to u8/i8/i16
//! conversion takes the low bits (`bfe`, not a saturating `cvt.sat`); `+ - * <<`, signed `/` and
//! `-`, unsigned `!` and `abs` are followed by a `bfe` of the result, so comparisons, shifts and
//! conversions read wrapped values; `!` of a signed value stays extended without one; a widening
//! conversion (i8 to i16) emits nothing (the i8 register is already a valid i16); u8, i8 and i16 arrays loaded from global memory
//! (`ld.global.s8`, sign-extended) wrap the same way, and the u8 sum is stored with `st.global.u8`.
//! The first expectations name registers to pin the data flow of the scalars: the conversions of
//! the parameter `%r11`, the comparison reading the wrapped sum `%r21` (not `%r20`), `!` of the
//! u8 wrapped and of the i8 not.
// expect: bfe.u32 %r14, %r11, 0, 8;
// expect: bfe.s32 %r15, %r11, 0, 8;
// expect: bfe.s32 %r16, %r11, 0, 16;
// expect: bfe.s32 %r18, %r11, 0, 4;
// expect: add.u32 %r20, %r14, %r19;
// expect: bfe.u32 %r21, %r20, 0, 8;
// expect: setp.lt.u32 %p3, %r21, %r14;
// expect: bfe.u32 %r23, %r22, 0, 8;
// expect: not.b32 %r25, %r15;
// expect: cvt.s32.s32 %r68, %r15;
// expect: neg.s32
// expect: abs.s32
// expect: div.s32
// expect: ld.global.s8
// expect: st.global.u8

use tessel::prelude::*;

#[kernel(grid = (N / 128))]
fn narrow_ints(a: Gmem<u8, N>, b: Gmem<i8, N>, d: Gmem<i16, N>, ya: GmemMut<u8, N>, y: GmemMut<i32, N>, s: i32) {
    let i = program_id(0);
    let (a8, b8, d16, c16, q4) = (s as u8, s as i8, s as i16, s as u16, s as i4);
    let sum8 = a8 + 200u8;
    let wrapped = sum8 < a8;
    let nots = (!a8) as i32 + (!b8) as i32 + (!c16) as i32;
    let small = (b8 * 3i8) as i32 + (-b8) as i32 + (b8 / -1i8) as i32 + ((a8 << 4u8) >> 4u8) as i32;
    let wide = (c16 * 7u16) as i32 + (d16 + 30000i16) as i32 + (q4 + 7i4) as i32 + (b8 as i16) as i32;
    let mut total = nots + small + wide;
    if wrapped && (d16 - 30000i16) > 0i16 {
        total += 1;
    }
    let va = a.tile([i], [128]).load(Layout::Strided);
    let vb = b.tile([i], [128]).load(Layout::Strided);
    let vd = d.tile([i], [128]).load(Layout::Strided);
    let va2 = va + va;
    ya.tile([i], [128]).store(va2);
    let over = (va2 < va).cast::<i32>() + (-vb).cast::<i32>() + abs(vb).cast::<i32>() + (vd * 3).cast::<i32>();
    y.tile([i], [128]).store(over + (va * a8).cast::<i32>() + (vb.cast::<u8>() > 100).cast::<i32>() + total);
}

fn main() {}
