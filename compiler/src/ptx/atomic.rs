//! `tile.atomic_add(value)`: register arrays added into global memory with `red.global.add`
//! (PTX ISA #parallel-synchronization-and-communication-instructions-red), one element or one
//! side-by-side pair at a time, the forms of `legality::ATOMIC_ADD`.
//!
//! The addressing and bounds are a register store's (`memory`, `gmem_walk`, `gmem_pairs`):
//! elements outside the array (a ragged dimension's last tile) are not added. `red` is a relaxed
//! atomic of `.gpu` scope: every program's adds to one element are applied one at a time, in an
//! order the hardware chooses.

use super::gen::Gen;
use super::gmem_pairs;
use super::gmem_walk::Walk;
use super::layout::Frag;
use super::memory::{elem_address, exists, guard, paired, regs_for_layout, tile_shape, walk, Place};
use super::value::Val;
use super::writer::Class;
use crate::typeck::{RegsTy, Ty};
use crate::types::Layout;
use tessel_ir::legality::{atomic_add_row, sync_scope, AtomicAddRow, PairAdd};
use tessel_ir::program::Expr;

/// `dst.atomic_add(value)` into a tile of a global array.
pub fn emit_atomic_add(g: &mut Gen, dst: &Expr, value: &Expr) -> Val {
    let Ty::Regs(vt) = value.ty.clone() else {
        return g.internal(format!("an atomic add of a value typed {}", value.ty));
    };
    let red = match &dst.ty {
        Ty::Tile(t, _) if t.peers => format!("red.relaxed.{}.global.add", sync_scope(true).ptx()),
        _ => "red.global.add".to_string(),
    };
    let Val::Tile { addr, param, index, .. } = g.expr(dst) else {
        return g.internal("an atomic add into something other than a global tile");
    };
    let Val::Regs { regs, .. } = g.expr(value) else {
        return g.internal("an atomic add of a value that is not a register array");
    };
    let Some(row) = atomic_add_row(vt.dtype) else {
        return g.internal(format!("an atomic add of {}, which `red.global.add` does not add", vt.dtype));
    };
    // A splat has one register: add it at every position through a strided walk.
    let (vt, regs) = match vt.layout {
        Layout::Splat => {
            let strided = RegsTy { layout: Layout::Strided, ..vt.clone() };
            let regs = regs_for_layout(g, &vt, &regs, Layout::Strided, &vt.shape);
            (strided, regs)
        }
        _ => (vt, regs),
    };
    let place = Place::Gmem { addr, param, index, tile: tile_shape(dst, &vt.shape) };
    let frag = g.fragment(vt.layout, &vt.shape, vt.dtype);
    let walk = walk(g, &place, &frag, vt.dtype);
    match (walk.as_ref(), paired(&place, &frag, vt.dtype), row.pair) {
        (Some(w), Some(param), Some(pair)) => gmem_pairs::by_parity(
            g,
            param,
            |g| add_pairs(g, &red, (w, &frag), &regs, pair),
            |g| add_elements(g, &red, (&place, Some(w), &frag), &vt, &regs, row),
        ),
        _ => add_elements(g, &red, (&place, walk.as_ref(), &frag), &vt, &regs, row),
    }
    Val::Unit
}

/// Adds the fragment's elements one by one (those that exist and lie inside the array).
fn add_elements(
    g: &mut Gen,
    red: &str,
    (place, walk, frag): (&Place, Option<&Walk>, &Frag),
    vt: &RegsTy,
    regs: &[String],
    row: &AtomicAddRow,
) {
    for (el, r) in regs.iter().enumerate().take(frag.len()) {
        let (addr, _, inside) = elem_address(g, place, walk, frag, el, &vt.shape, vt.dtype);
        let ex = exists(g, frag, el);
        let guard = guard(g, ex, inside).map(|p| format!("@{p} ")).unwrap_or_default();
        g.w.ins(format!("{guard}{red}{} [{addr}], {r}", row.single));
    }
}

/// Adds the fragment's side-by-side pairs with one instruction each: a vector of two registers, or
/// one `.b32` packing two 16-bit halves (the first element low).
fn add_pairs(g: &mut Gen, red: &str, (walk, frag): (&Walk, &Frag), regs: &[String], pair: PairAdd) {
    for (offsets, two) in frag.offsets.iter().step_by(2).zip(regs.chunks(2)) {
        let (addr, inside) = walk.pair(g, offsets);
        let operand = if pair.vector {
            format!("{{{}, {}}}", two[0], two[1])
        } else {
            let packed = g.w.reg(Class::B32);
            g.w.ins(format!("mov.b32 {packed}, {{{}, {}}}", two[0], two[1]));
            packed
        };
        g.w.ins(format!("@{inside} {red}{} [{addr}], {operand}", pair.suffix));
    }
}
