//! Global-memory semaphores: `semaphore_signal(sems, i, n)` and `semaphore_wait(sems, i, n)`.
//!
//! A semaphore is a `u32` counter in global memory that programs of one launch hand work to each
//! other through (Pallas's `pl.semaphore_signal` / `pl.semaphore_wait`). The PTX adds to it with
//! `red.release.gpu.global.add.u32` and takes from it with `atom.acquire.gpu.global.cas.b32` at
//! `sems + 4 * i`, so the rules below are what those instructions need of the array, the index
//! and the count. A signal of a range `i..end` makes one release for all its semaphores
//! (`fence.acq_rel.gpu`, then a relaxed add to each), so its bounds follow the index's rules.

use super::{scalar, Checker, DimVal, GmemTy, Ty};
use crate::codes::Code;
use crate::syntax::ast::{Expr, SemaphoreOp};
use crate::types::DType;

/// `semaphore_signal(sems, i)`, `semaphore_wait(sems, i)`, each with an optional count `n`; a
/// signal's `i..end`.
pub(super) fn check_semaphore(
    ck: &mut Checker,
    op: SemaphoreOp,
    sems: &Expr,
    (index, end): (&Expr, Option<&Expr>),
    count: Option<&Expr>,
) -> Ty {
    let array = check_semaphore_array(ck, op, sems);
    let first = check_semaphore_index(ck, array.as_ref(), index, 0);
    if let Some(end) = end {
        let last = check_semaphore_index(ck, array.as_ref(), end, 1);
        if let (Some(first), Some(last)) = (first, last) {
            if last <= first {
                ck.ctx.type_error(
                    end,
                    Code::SemaphoreIndex,
                    format!("the range {first}..{last} names no semaphore"),
                    "a range of semaphores ends after it starts",
                );
            }
        }
    }
    if let Some(n) = count {
        check_semaphore_count(ck, op, n);
    }
    Ty::Unit
}

/// The count is a 32-bit integer, and a constant one is at least 1: a signal of 0 does nothing and
/// a wait for 0 returns at once, and a negative one becomes a count near 2^32 in the `u32` counter.
fn check_semaphore_count(ck: &mut Checker, op: SemaphoreOp, n: &Expr) {
    let ty = ck.check_expr(n);
    if !scalar::expect_index(ck, n, &ty, "a semaphore count") {
        return;
    }
    if let Some(v) = scalar::eval_const(ck, n).filter(|v| *v < 1) {
        ck.ctx.type_error(
            n,
            Code::SemaphoreIndex,
            format!("a semaphore count is at least 1, got {v}"),
            format!("write `{}(sems, i)` for a count of 1", op.name()),
        );
    }
}

/// The semaphores are a kernel parameter declared `GmemMut<u32, N>`: written (both operations
/// change the counter), of 32-bit counters (the width of `red.add.u32` and `atom.cas.b32`), and 1-D
/// (one index names one counter). Every broken rule is reported; the array is returned when it
/// keeps them all, to bound constant indices.
fn check_semaphore_array(ck: &mut Checker, op: SemaphoreOp, sems: &Expr) -> Option<GmemTy> {
    let g = match ck.check_expr(sems) {
        Ty::Gmem(g) => g,
        Ty::Error => return None,
        other => {
            ck.ctx.type_error(
                sems,
                Code::SemaphoreArray,
                format!("`{}` takes a global array of semaphores, got {other}", op.name()),
                "pass a kernel parameter declared `sems: GmemMut<u32, N>` itself (not a tile of it)",
            );
            return None;
        }
    };
    if g.remote && op == SemaphoreOp::Wait {
        ck.ctx.type_error(
            sems,
            Code::WaitOnPeer,
            format!("`semaphore_wait` waits on this device's counters, and this is another device's copy of `{}`", g.name),
            format!(
                "wait on `{0}` itself: the other device signals this one's with `semaphore_signal(remote({0}, rank), i)`",
                g.name
            ),
        );
        return None;
    }
    let wanted = Ty::Gmem(GmemTy { dtype: DType::U32, mutable: true, remote: false, ..g.clone() });
    let declare = format!("declare the parameter `{}: {wanted}`", g.name);
    let mut ok = true;
    if !g.mutable {
        let message = format!("`{}` is read-only (`Gmem`), but `{}` writes its semaphores", g.name, op.name());
        ck.ctx.type_error(sems, Code::SemaphoreArray, message, &declare);
        ok = false;
    }
    if g.dtype != DType::U32 {
        ck.ctx.type_error(
            sems,
            Code::SemaphoreArray,
            format!("a semaphore is a u32, but `{}` holds {}", g.name, g.dtype),
            &declare,
        );
        ok = false;
    }
    if g.shape.len() != 1 {
        ck.ctx.type_error(
            sems,
            Code::SemaphoreArray,
            format!("an array of semaphores is 1-D, but `{}` has {} dimensions", g.name, g.shape.len()),
            format!("declare the parameter `{}: GmemMut<u32, N>`, one semaphore per index", g.name),
        );
        ok = false;
    }
    ok.then_some(g)
}

/// The index is a 32-bit integer (the PTX forms the address with `mad.wide.u32`); a constant one
/// lies inside an array of static length, shifted by `past` (1 for a range's end, which may be
/// the length). A runtime index outside the array is the kernel's business: the GPU skips the
/// operation, the interpreter reports it. Returns the index when it is a constant.
fn check_semaphore_index(ck: &mut Checker, array: Option<&GmemTy>, index: &Expr, past: i64) -> Option<i64> {
    let ty = ck.check_expr(index);
    if !scalar::expect_index(ck, index, &ty, "a semaphore index") {
        return None;
    }
    let i = scalar::eval_const(ck, index)?;
    if let Some(g) = array {
        if let Some(DimVal::Static(len)) = g.shape.first() {
            if !(past..*len + past).contains(&i) {
                let name = &g.name;
                let (what, last) = if past == 0 { ("index", len - 1) } else { ("range end", *len) };
                ck.ctx.type_error(
                    index,
                    Code::SemaphoreIndex,
                    format!("{what} {i} is out of range for the {len} semaphores of `{name}`"),
                    format!("a semaphore {what} of `{name}` is {past} to {last}"),
                );
            }
        }
    }
    Some(i)
}
