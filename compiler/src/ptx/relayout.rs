//! Layout changes of register arrays: `broadcast` (row and column vectors back to the WGMMA layout,
//! splats to anything), `to_layout` (through per-warpgroup scratch shared memory when elements move
//! between threads) and `layout_cast` (a reinterpretation: the registers stay as they are).
//!
//! Every result is in registers of its own: a later assignment to a mutable name writes into that
//! name's registers, which must not be shared with another live value.

use super::gen::Gen;
use super::layout::{self, Frag};
use super::scratch;
use super::sync::sync_warpgroup;
use super::value::Val;
use crate::typeck::{RegsTy, Ty};
use crate::types::DType;
use crate::types::Layout;
use tessel_ir::program::Expr;

/// The operand and result of a layout op, when both are register arrays.
fn operands(g: &mut Gen, e: &Expr, value: &Expr) -> Option<(Vec<String>, RegsTy, RegsTy)> {
    let Ty::Regs(to) = e.ty.clone() else { return None };
    match g.expr(value) {
        Val::Regs { regs, ty } => Some((regs, ty, to)),
        _ => None,
    }
}

/// Fresh copies of `regs[picks[k]]`, one per result element.
fn copies(g: &mut Gen, dtype: DType, regs: &[String], picks: impl Iterator<Item = usize>) -> Vec<String> {
    picks
        .map(|p| {
            let r = g.w.reg_for(dtype);
            g.mov(dtype, &r, &regs[p]);
            r
        })
        .collect()
}

/// A splat's one register repeated for every element `to` holds (one copy for `Layout::Splat`).
fn repeat(g: &mut Gen, reg: &str, to: &RegsTy) -> Vec<String> {
    let n = layout::count(to.layout, &to.shape);
    copies(g, to.dtype, &[reg.to_string()], std::iter::repeat_n(0, n))
}

/// `v.broadcast([M, N], layout)`.
///
/// Element `i` of 64-row tile `mt` of a `Layout::Wgmma` [M, N] fragment sits at row
/// `16w + g + 8((i >> 1) & 1) + 64mt` and column `8(i >> 2) + 2t + (i & 1)` (layout.rs). A
/// `WgmmaRow` [M] vector holds, as its element `2mt + h`, row `16w + g + 8h + 64mt`: so element
/// `(mt, i)` takes row element `2mt + ((i >> 1) & 1)`. A `WgmmaCol` [N] vector holds, as element
/// `2j + c`, column `8j + 2t + c`: so element `(mt, i)` takes column element `2(i >> 2) + (i & 1)`.
/// Both are this thread's own registers: no data moves between threads.
pub fn emit_broadcast(g: &mut Gen, e: &Expr, value: &Expr) -> Val {
    let Some((regs, from, to)) = operands(g, e, value) else {
        return g.internal("a layout op on something other than a register array");
    };
    let regs = match from.layout {
        Layout::Splat => repeat(g, &regs[0], &to),
        Layout::WgmmaRow => {
            let picks = wgmma_elements(&to.shape).map(|(mt, i)| 2 * mt + ((i >> 1) & 1));
            copies(g, to.dtype, &regs, picks)
        }
        Layout::WgmmaCol => {
            let picks = wgmma_elements(&to.shape).map(|(_, i)| 2 * (i >> 2) + (i & 1));
            copies(g, to.dtype, &regs, picks)
        }
        // typeck (C5) admits no other source layout.
        Layout::Wgmma | Layout::Strided | Layout::MmaLhs | Layout::MmaRhs | Layout::MmaAcc => {
            return g.internal(format!("a broadcast from {}", from.layout))
        }
    };
    Val::Regs { regs, ty: to }
}

/// The (64-row tile, element) pairs of a `Layout::Wgmma` fragment of `shape`, in register order.
fn wgmma_elements(shape: &[i64]) -> impl Iterator<Item = (usize, usize)> {
    let (tiles, per_tile) = ((shape[0] / 64) as usize, (shape[1] / 2) as usize);
    (0..tiles).flat_map(move |mt| (0..per_tile).map(move |i| (mt, i)))
}

/// `x.to_layout(layout)`: the identity, a splat repeated, or a round trip through scratch.
pub fn emit_to_layout(g: &mut Gen, e: &Expr, value: &Expr) -> Val {
    let Some((regs, from, to)) = operands(g, e, value) else {
        return g.internal("a layout op on something other than a register array");
    };
    let regs = if from.layout == to.layout {
        regs
    } else if from.layout == Layout::Splat {
        repeat(g, &regs[0], &to)
    } else {
        round_trip(g, &from, &regs, &to)
    };
    Val::Regs { regs, ty: to }
}

/// Moves an array between two layouts through this warpgroup's scratch, stored row-major over the
/// array's shape: every thread stores its elements at their coordinates, the warpgroup
/// synchronizes, every thread loads the elements the target layout gives it, and the warpgroup
/// synchronizes again so that the next user of the scratch cannot overwrite it before all have read.
/// Layouts that hold an element in several threads (`MmaRhs`, `MmaLhs` with fewer than four warps
/// along M) store the same value several times, which is harmless.
fn round_trip(g: &mut Gen, from: &RegsTy, regs: &[String], to: &RegsTy) -> Vec<String> {
    g.w.comment(format!("to_layout {} -> {} through scratch shared memory", from.layout, to.layout));
    let scratch = scratch::base(g);
    let src = g.fragment(from.layout, &from.shape, from.dtype);
    let (addr, offsets) = element_addresses(g, &src, &from.shape, from.dtype, &scratch);
    for (el, r) in regs.iter().enumerate().take(src.len()) {
        let guard = exists(g, &src, el);
        scratch::store(g, from.dtype, &addr, offsets[el], r, &guard);
    }
    sync_warpgroup(g);
    let dst = g.fragment(to.layout, &to.shape, to.dtype);
    let (addr, offsets) = element_addresses(g, &dst, &to.shape, to.dtype, &scratch);
    let out = (0..dst.len())
        .map(|el| {
            let guard = exists(g, &dst, el);
            scratch::load(g, to.dtype, &addr, offsets[el], &guard)
        })
        .collect();
    sync_warpgroup(g);
    out
}

/// A fragment's elements in a row-major array at `scratch`: one register with the address of the
/// thread's base coordinate, and each element's constant byte offset from it.
fn element_addresses(g: &mut Gen, frag: &Frag, shape: &[i64], dtype: DType, scratch: &str) -> (String, Vec<i64>) {
    let eb = i64::from(dtype.elem_bytes());
    // Row-major strides in bytes; a flat (Strided) fragment indexes the flattened array directly.
    let strides: Vec<i64> = if frag.flat {
        vec![eb]
    } else {
        (0..shape.len()).map(|d| shape[d + 1..].iter().product::<i64>() * eb).collect()
    };
    let addr = g.w.reg(super::writer::Class::B32);
    g.w.ins(format!("mov.u32 {addr}, {scratch}"));
    for (b, s) in frag.base.iter().zip(&strides) {
        g.w.ins(format!("mad.lo.u32 {addr}, {b}, {s}, {addr}"));
    }
    let offsets = frag.offsets.iter().map(|o| o.iter().zip(&strides).map(|(o, s)| o * s).sum()).collect();
    (addr, offsets)
}

/// `@p ` where a strided element may lie past the end of the array (its thread holds one fewer).
fn exists(g: &mut Gen, frag: &Frag, el: usize) -> String {
    if !frag.flat || frag.total % 128 == 0 {
        return String::new();
    }
    let p = g.w.reg(super::writer::Class::Pred);
    g.w.ins(format!("setp.lt.u32 {p}, {}, {}", frag.base[0], frag.total - frag.offsets[el][0]));
    format!("@{p} ")
}

/// `x.layout_cast(layout)`: the registers as they are, or a splat repeated.
///
/// typeck's `reinterpretable` admits `Wgmma <-> MmaAcc` for 64-row arrays and `Wgmma <-> MmaLhs` for
/// 64-row 16-bit arrays. Both place every element in the same thread and register (layout.rs):
/// - `MmaAcc` [64, N]: m_warps = 4, so warp w holds rows `16w + g + 8(c >> 1)`, columns
///   `8j + 2t + (c & 1)` as element `4j + c`; `Wgmma` element `i = 4j + c` has row
///   `16w + g + 8((i >> 1) & 1)` = `16w + g + 8(c >> 1)` and column `8(i >> 2) + 2t + (i & 1)` =
///   `8j + 2t + (c & 1)`.
/// - `MmaLhs` [64, K], 16-bit: two elements per register, K blocks of 16; element
///   `8kk + 2r + e` has row `16w + g + 8(r & 1)` and column `16kk + 8(r >> 1) + 2t + e`; `Wgmma`
///   element `i = 8kk + 2r + e` has `(i >> 1) & 1 = r & 1` and `8(i >> 2) = 16kk + 8(r >> 1)`.
pub fn emit_layout_cast(g: &mut Gen, e: &Expr, value: &Expr) -> Val {
    let Some((regs, from, to)) = operands(g, e, value) else {
        return g.internal("a layout op on something other than a register array");
    };
    let regs = if from.layout == Layout::Splat && to.layout != Layout::Splat { repeat(g, &regs[0], &to) } else { regs };
    Val::Regs { regs, ty: to }
}
