//! Reductions of register arrays: `x.sum(axis)`, `x.max(axis)`, `x.min(axis)`.
//!
//! A `Layout::Wgmma` [M, N] array reduces along axis 1 to a `WgmmaRow` [M] vector and along axis 0
//! to a `WgmmaCol` [N] vector; a 1-D array reduces to a scalar (`to_scalar`). Thread (warp w, lane l = 4g + t) holds element `i` of 64-row tile
//! `mt` at row `16w + g + 8((i >> 1) & 1) + 64mt`, column `8(i >> 2) + 2t + (i & 1)` (layout.rs):
//! - a row `(mt, h)` is spread over this thread's elements with `(i >> 1) & 1 = h` and over the four
//!   lanes `t` of the quad, so a row reduction combines its own elements, then shuffles with lane
//!   xor 1 and xor 2;
//! - a column `8j + 2t + c` is spread over this thread's elements `i = 4j + 2h + c` of every tile,
//!   over the eight lanes `g` of the warp (lane xor 4, 8, 16) and over the four warps, which meet
//!   in scratch shared memory.
//!
//! Floats reduce in f32 (16-bit and 8-bit floats are rounded once, at the end); integers reduce in
//! 32 or 64 bits and sums wrap to the dtype's width, as the interpreter's step-by-step wrapping
//! does; bools reduce as 0/1 (a sum is an `or`). Butterfly shuffles leave every lane with the same
//! bits (IEEE addition is commutative), and every thread combines the warps' partials in the same
//! order, so replicated elements agree exactly.

use super::gen::Gen;
use super::scalar;
use super::scratch;
use super::sync::sync_warpgroup;
use super::value::Val;
use super::writer::Class;
use crate::typeck::{RegsTy, Ty};
use crate::types::DType;
use crate::types::Layout;
use tessel_ir::ops::ReduceOp;
use tessel_ir::program::Expr;

pub fn emit(g: &mut Gen, e: &Expr, value: &Expr, op: ReduceOp, axis: u32) -> Val {
    let Val::Regs { regs, ty } = g.expr(value) else {
        return g.internal("a reduction of something other than a register array");
    };
    let out = match e.ty.clone() {
        Ty::Scalar(dtype) => {
            return to_scalar(g, op, &ty, &regs).map_or_else(
                || {
                    g.internal(format!(
                        "a reduction of {} {} to a scalar",
                        ty.layout,
                        crate::diag::shape_str(&ty.shape)
                    ))
                },
                |reg| Val::Scalar { reg, dtype },
            )
        }
        Ty::Regs(out) => out,
        other => return g.internal(format!("a reduction typed {other}")),
    };
    let regs = match (ty.layout, axis) {
        (Layout::Splat, _) => vec![splat(g, op, ty.dtype, &regs[0], ty.shape[axis as usize])],
        (Layout::Wgmma, 1) => rows(g, op, &ty, &regs),
        (Layout::Wgmma, 0) => columns(g, op, &ty, &regs),
        // typeck admits no other reduction.
        (layout, axis) => return g.internal(format!("a reduction of {layout} along axis {axis}")),
    };
    Val::Regs { regs, ty: out }
}

/// The dtype a reduction computes in.
fn work_dtype(d: DType) -> DType {
    match d {
        DType::Bf16 | DType::F16 | DType::F32 | DType::Tf32 | DType::F8E4M3 | DType::F8E5M2 => DType::F32,
        DType::I4 | DType::I8 | DType::I16 | DType::I32 => DType::I32,
        DType::U8 | DType::U16 | DType::U32 | DType::Bool => DType::U32,
        DType::I64 => DType::I64,
        DType::U64 => DType::U64,
    }
}

/// An element in the reduction's dtype (narrow integers already live widened in `.b32`).
fn to_work(g: &mut Gen, d: DType, r: &str) -> String {
    match d {
        DType::Bool => {
            let w = g.w.reg(Class::B32);
            g.w.ins(format!("selp.u32 {w}, 1, 0, {r}"));
            w
        }
        d if d.is_float() => scalar::convert(g, d, DType::F32, r),
        _ => r.to_string(),
    }
}

/// A result back in the array's dtype: floats rounded once, narrow integer sums wrapped.
fn from_work(g: &mut Gen, d: DType, r: &str) -> String {
    match d {
        DType::Bool => {
            let p = g.w.reg(Class::Pred);
            g.w.ins(format!("setp.ne.u32 {p}, {r}, 0"));
            p
        }
        d if d.is_float() => scalar::convert(g, DType::F32, d, r),
        DType::I4 | DType::I8 | DType::I16 | DType::U8 | DType::U16 => scalar::wrap(g, d, r),
        _ => r.to_string(),
    }
}

/// `a op b` in the reduction's dtype `w`.
fn combine(g: &mut Gen, op: ReduceOp, w: DType, a: &str, b: &str) -> String {
    let name = match op {
        ReduceOp::Sum => "add",
        ReduceOp::Max => "max",
        ReduceOp::Min => "min",
    };
    let r = g.w.reg_for(w);
    g.w.ins(format!("{name}.{} {r}, {a}, {b}", scalar::arith_type(w)));
    r
}

/// Combines registers pairwise (a tree, so the dependency chain is logarithmic).
fn tree(g: &mut Gen, op: ReduceOp, w: DType, mut vals: Vec<String>) -> String {
    while vals.len() > 1 {
        let mut next = Vec::with_capacity(vals.len().div_ceil(2));
        for pair in vals.chunks(2) {
            match pair {
                [a, b] => next.push(combine(g, op, w, a, b)),
                [a] => next.push(a.clone()),
                _ => {}
            }
        }
        vals = next;
    }
    vals.pop().unwrap_or_default()
}

/// `shfl.sync.bfly` with lane xor `mask` (PTX ISA #data-movement-and-conversion-instructions-shfl-sync);
/// 64-bit values move as two halves.
fn shuffle(g: &mut Gen, w: DType, v: &str, mask: u32) -> String {
    let one = |g: &mut Gen, x: &str| {
        let r = g.w.reg(if w == DType::F32 { Class::F32 } else { Class::B32 });
        g.w.ins(format!("shfl.sync.bfly.b32 {r}, {x}, {mask}, 31, -1"));
        r
    };
    if !matches!(w, DType::I64 | DType::U64) {
        return one(g, v);
    }
    let (lo, hi) = (g.w.reg(Class::B32), g.w.reg(Class::B32));
    g.w.ins(format!("mov.b64 {{{lo}, {hi}}}, {v}"));
    let (lo, hi) = (one(g, &lo), one(g, &hi));
    let r = g.w.reg(Class::B64);
    g.w.ins(format!("mov.b64 {r}, {{{lo}, {hi}}}"));
    r
}

/// Combines `v` across the lanes that differ in the bits of `masks`.
fn across_lanes(g: &mut Gen, op: ReduceOp, w: DType, mut v: String, masks: &[u32]) -> String {
    for m in masks {
        let other = shuffle(g, w, &v, *m);
        v = combine(g, op, w, &v, &other);
    }
    v
}

/// A reduction of a splat of `len` elements along the axis: `v * len` for sums, `v` otherwise.
fn splat(g: &mut Gen, op: ReduceOp, d: DType, v: &str, len: i64) -> String {
    let w = work_dtype(d);
    let x = to_work(g, d, v);
    let r = g.w.reg_for(w);
    match (op, w) {
        (ReduceOp::Sum, DType::F32) => g.w.ins(format!("mul.rn.f32 {r}, {x}, {}", scalar::literal(w, len as f64))),
        (ReduceOp::Sum, _) if d != DType::Bool => g.w.ins(format!("mul.lo.{} {r}, {x}, {len}", scalar::arith_type(w))),
        _ => g.mov(w, &r, &x),
    }
    from_work(g, d, &r)
}

/// Axis 1: one value per row `(mt, h)`, in `WgmmaRow` order `2mt + h`.
fn rows(g: &mut Gen, op: ReduceOp, ty: &RegsTy, regs: &[String]) -> Vec<String> {
    let (m, n) = (ty.shape[0] as usize, ty.shape[1] as usize);
    let w = work_dtype(ty.dtype);
    let per_tile = n / 2;
    g.w.comment(format!("{} over axis 1 of [{m}, {n}]: own elements, then lanes xor 1, 2", op.name()));
    let mut out = Vec::new();
    for mt in 0..m / 64 {
        for h in 0..2 {
            let mine: Vec<String> = (0..per_tile)
                .filter(|i| (i >> 1) & 1 == h)
                .map(|i| to_work(g, ty.dtype, &regs[mt * per_tile + i]))
                .collect();
            let v = tree(g, op, w, mine);
            let v = across_lanes(g, op, w, v, &[1, 2]);
            out.push(from_work(g, ty.dtype, &v));
        }
    }
    out
}

/// Axis 0: one value per column `8j + 2t + c`, in `WgmmaCol` order `2j + c`.
fn columns(g: &mut Gen, op: ReduceOp, ty: &RegsTy, regs: &[String]) -> Vec<String> {
    let (m, n) = (ty.shape[0] as usize, ty.shape[1] as usize);
    let w = work_dtype(ty.dtype);
    let per_tile = n / 2;
    g.w.comment(format!("{} over axis 0 of [{m}, {n}]: own elements, lanes xor 4, 8, 16, then warps", op.name()));
    let mut partials = Vec::new();
    for j in 0..n / 8 {
        for c in 0..2 {
            let mine: Vec<String> = (0..m / 64)
                .flat_map(|mt| (0..2).map(move |h| mt * per_tile + 4 * j + 2 * h + c))
                .map(|i| to_work(g, ty.dtype, &regs[i]))
                .collect();
            let v = tree(g, op, w, mine);
            partials.push(across_lanes(g, op, w, v, &[4, 8, 16]));
        }
    }
    let totals = across_warps(g, op, w, &partials, n as i64);
    totals.iter().map(|v| from_work(g, ty.dtype, v)).collect()
}

/// A 1-D array reduced to a scalar that every thread of the warpgroup holds, by layout:
/// - a `WgmmaRow` [M] vector: this thread's rows (`16w + g + 8h + 64mt`), then the lanes that hold
///   other rows (lane xor 4, 8, 16; the four lanes `t` of a quad hold the same rows), then the
///   four warps' partials through scratch;
/// - a `WgmmaCol` [N] vector: this thread's columns (`8j + 2t + c`), then lanes xor 1, 2 (every
///   warp, and every `g` of a warp, holds all columns);
/// - a `Strided` [N] array: this thread's elements `tid + 128k` (the identity of the operation for
///   one past the end), then every lane, then the warps;
/// - a splat: its value, times the length for a sum.
///
/// `None` for another layout, which typeck does not give a 1-D array.
fn to_scalar(g: &mut Gen, op: ReduceOp, ty: &RegsTy, regs: &[String]) -> Option<String> {
    let (d, len) = (ty.dtype, ty.shape[0]);
    let w = work_dtype(d);
    g.w.comment(format!("{} of [{len}] in {} to a scalar", op.name(), ty.layout));
    let v = match ty.layout {
        Layout::Splat => return Some(splat(g, op, d, &regs[0], len)),
        Layout::WgmmaRow => {
            let mine: Vec<String> = regs.iter().map(|r| to_work(g, d, r)).collect();
            let v = tree(g, op, w, mine);
            let v = across_lanes(g, op, w, v, &[4, 8, 16]);
            warps_to_scalar(g, op, w, &v)
        }
        Layout::WgmmaCol => {
            let mine: Vec<String> = regs.iter().map(|r| to_work(g, d, r)).collect();
            let v = tree(g, op, w, mine);
            across_lanes(g, op, w, v, &[1, 2])
        }
        Layout::Strided => {
            let mine = strided_elements(g, op, ty, regs);
            let v = tree(g, op, w, mine);
            let v = across_lanes(g, op, w, v, &[1, 2, 4, 8, 16]);
            warps_to_scalar(g, op, w, &v)
        }
        Layout::Wgmma | Layout::MmaLhs | Layout::MmaRhs | Layout::MmaAcc => return None,
    };
    Some(from_work(g, d, &v))
}

/// This thread's elements `tid + 128k` of a strided [N] array in the reduction's dtype; when N is
/// not a multiple of 128 the last one is past the end in threads `tid >= N % 128`, which hold the
/// operation's identity there instead.
fn strided_elements(g: &mut Gen, op: ReduceOp, ty: &RegsTy, regs: &[String]) -> Vec<String> {
    let (d, len) = (ty.dtype, ty.shape[0]);
    let w = work_dtype(d);
    let mut mine: Vec<String> = regs.iter().map(|r| to_work(g, d, r)).collect();
    if len % 128 == 0 {
        return mine;
    }
    let Some(last) = mine.pop() else { return mine };
    let inside = g.w.reg(Class::Pred);
    g.w.ins(format!("setp.lt.u32 {inside}, {}, {}", g.lanes.tid, len % 128));
    let id = g.w.reg_for(w);
    g.mov(w, &id, &identity(op, w));
    let r = g.w.reg_for(w);
    g.w.ins(format!("selp.{} {r}, {last}, {id}, {inside}", move_type(w)));
    mine.push(r);
    mine
}

/// The identity of `op` in the reduction's dtype `w`: -0.0 for float sums (`-0.0 + x` is `x`, also
/// for `x = -0.0`), a NaN for float max and min (PTX `max.f32` and `min.f32` return the other
/// operand, as the interpreter does), the extreme values for integers.
fn identity(op: ReduceOp, w: DType) -> String {
    match (op, w) {
        (ReduceOp::Sum, DType::F32) => "0f80000000".into(),
        (_, DType::F32) => "0f7FFFFFFF".into(),
        (ReduceOp::Sum, _) => "0".into(),
        (ReduceOp::Max, DType::I32) => "0x80000000".into(),
        (ReduceOp::Max, DType::I64) => "0x8000000000000000".into(),
        (ReduceOp::Max, _) => "0".into(),
        (ReduceOp::Min, DType::I32) => "0x7FFFFFFF".into(),
        (ReduceOp::Min, DType::I64) => "0x7FFFFFFFFFFFFFFF".into(),
        (ReduceOp::Min, DType::U64) => "0xFFFFFFFFFFFFFFFF".into(),
        (ReduceOp::Min, _) => "0xFFFFFFFF".into(),
    }
}

fn move_type(w: DType) -> &'static str {
    match w {
        DType::F32 => "f32",
        DType::I64 | DType::U64 => "b64",
        _ => "b32",
    }
}

/// Combines the four warps' copies of a value (each the same in every lane of its warp) through
/// scratch: lane 0 of each warp stores it at `[warp]`, the warpgroup synchronizes, and every
/// thread combines the four in warp order, so that all hold the same bits.
fn warps_to_scalar(g: &mut Gen, op: ReduceOp, w: DType, v: &str) -> String {
    let wb = i64::from(crate::typeck::scratch::work_bytes(w));
    let st = move_type(w);
    let base = scratch::base(g);
    let own = g.w.reg(Class::B32);
    g.w.ins(format!("mad.lo.u32 {own}, {}, {wb}, {base}", g.lanes.w));
    let lane = g.w.reg(Class::B32);
    g.w.ins(format!("and.b32 {lane}, {}, 31", g.lanes.tid));
    let writer = g.w.reg(Class::Pred);
    g.w.ins(format!("setp.eq.u32 {writer}, {lane}, 0"));
    g.w.ins(format!("@{writer} st.shared.{st} [{own}], {v}"));
    sync_warpgroup(g);
    let parts: Vec<String> = (0..4)
        .map(|warp| {
            let r = g.w.reg_for(w);
            g.w.ins(format!("ld.shared.{st} {r}, [{base}+{}]", warp * wb));
            r
        })
        .collect();
    let total = parts[1..].iter().fold(parts[0].clone(), |acc, p| combine(g, op, w, &acc, p));
    sync_warpgroup(g);
    total
}

/// Combines each warp's column partials through scratch laid out as [warp][column] of `w`: lanes
/// with g = 0 store their columns `8j + 2t + c`, the warpgroup synchronizes, and every thread reads
/// the four warps' partials of its columns and combines them in warp order.
fn across_warps(g: &mut Gen, op: ReduceOp, w: DType, partials: &[String], n: i64) -> Vec<String> {
    let wb = i64::from(crate::typeck::scratch::work_bytes(w));
    let st = match w {
        DType::F32 => "f32",
        DType::I64 | DType::U64 => "b64",
        _ => "b32",
    };
    let base = scratch::base(g);
    // This thread's first column, 2t, in the partials of warp 0.
    let col = g.w.reg(Class::B32);
    g.w.ins(format!("mad.lo.u32 {col}, {}, {wb}, {base}", g.lanes.t2));
    let own = g.w.reg(Class::B32);
    g.w.ins(format!("mad.lo.u32 {own}, {}, {}, {col}", g.lanes.w, n * wb));
    let writer = g.w.reg(Class::Pred);
    g.w.ins(format!("setp.eq.u32 {writer}, {}, 0", g.lanes.g));
    let offset = |k: usize| (8 * (k as i64 / 2) + (k as i64 % 2)) * wb;
    for (k, v) in partials.iter().enumerate() {
        g.w.ins(format!("@{writer} st.shared.{st} [{own}+{}], {v}", offset(k)));
    }
    sync_warpgroup(g);
    let totals = (0..partials.len())
        .map(|k| {
            let parts: Vec<String> = (0..4)
                .map(|warp| {
                    let r = g.w.reg_for(w);
                    g.w.ins(format!("ld.shared.{st} {r}, [{col}+{}]", warp * n * wb + offset(k)));
                    r
                })
                .collect();
            parts[1..].iter().fold(parts[0].clone(), |acc, p| combine(g, op, w, &acc, p))
        })
        .collect();
    sync_warpgroup(g);
    totals
}
