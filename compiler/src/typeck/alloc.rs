//! Scoped allocations: `run_scoped` (accumulators, shared memory, barriers), `run_state`, and the
//! shared-memory budget. Catalog rows A1-A9, E14 (second form) and E15.

use super::{acc, AccTy, Alloc, AllocKind, BarrierTy, Checker, SmemTy, Ty};
use crate::codes::Code;
use crate::diag::{Diag, Loc};
use crate::legality::{self, MAX_SMEM_BYTES, MBARRIER_BYTES, SMEM_ALIGN_PLAIN, SMEM_ALIGN_SWIZZLED};
use crate::syntax::ast::{Block, CollectiveAxes, Expr, Spanned, Transform, TypeExpr};
use crate::types::{DType, Swizzle};
use proc_macro2::Span;
use std::collections::HashMap;

/// `run_scoped(collective_axes = [..]?, |x: T, ..| body)`.
pub(super) fn check_run_scoped(
    ck: &mut Checker,
    call: &Expr,
    collective: Option<&CollectiveAxes>,
    params: &[(syn::Ident, TypeExpr)],
    body: &Block,
) -> Ty {
    let shared = params.iter().any(|(_, t)| matches!(t, TypeExpr::Smem { .. } | TypeExpr::Barrier { .. }));
    check_collective_axes(ck, collective, shared);
    if let Some(c) = collective.filter(|_| params.iter().any(|(_, t)| matches!(t, TypeExpr::Acc { .. }))) {
        // SEED 002: reported once, at the collective_axes argument. Its help splits the scope
        // when shared memory is allocated beside the accumulator: Mosaic GPU's hint (remove
        // collective_axes) would make that shared memory per warpgroup (A4) in a kernel of several.
        ck.ctx.error(c.loc, Diag::AccCollective { shared });
    }
    let saved_cursor = ck.smem_cursor;
    let first = ck.facts.allocs.len();
    let mut bound = Vec::new();
    for (name, ty) in params {
        let value = allocate(ck, name, ty, collective.is_some());
        bound.push((name.clone(), value));
    }
    // One allocation per parameter, unless one was rejected (and reported).
    ck.facts.scope_allocs.insert(call.id, (first..ck.facts.allocs.len()).collect());
    ck.scopes.push(HashMap::new());
    for (name, ty) in bound {
        ck.bind(&name, ty, false);
    }
    let result = ck.check_block(body);
    ck.scopes.pop();
    ck.smem_cursor = saved_cursor;
    check_escape(ck, body, result)
}

/// A `run_scoped` value may not refer to memory the scope frees.
fn check_escape(ck: &mut Checker, body: &Block, result: Ty) -> Ty {
    if result.is_plain_value() {
        return result;
    }
    let span = body.tail.as_deref().map_or(body.span.into(), Loc::from);
    ck.ctx.type_error(
        span,
        Code::EscapesRunScoped,
        format!("{result} cannot leave the run_scoped that allocated it"),
        "return register arrays or scalars (for an accumulator: `acc.load()`)",
    );
    Ty::Error
}

/// A3: `collective_axes` may only name the warpgroup axis, once. Points at the first axis that is
/// not it (or at the whole argument when the list is empty). `shared`: the scope allocates shared
/// memory or barriers, which a kernel of several warpgroups cannot allocate per warpgroup (A4),
/// so the help then does not offer to leave collective_axes out.
fn check_collective_axes(ck: &mut Checker, collective: Option<&CollectiveAxes>, shared: bool) {
    let Some(c) = collective else { return };
    let wg = ck.kernel.attr.warpgroup_axis.as_ref();
    let stray = c.axes.iter().enumerate().find(|(i, a)| *i > 0 || wg != Some(*a)).map(|(_, a)| a.span());
    let must_share = shared && ck.kernel.attr.warpgroups.value > 1;
    let diag = Diag::CollectiveNotWarpgroup { wg: wg.map(|w| w.to_string()), must_share };
    match stray {
        Some(span) => ck.ctx.error(span, diag),
        None if c.axes.is_empty() => ck.ctx.error(c.loc, diag),
        None => {}
    }
}

/// Allocates one closure parameter and returns its type (`Ty::Error` if it was rejected).
fn allocate(ck: &mut Checker, name: &syn::Ident, ty: &TypeExpr, collective: bool) -> Ty {
    match ty {
        TypeExpr::Acc { dtype, shape, .. } => {
            let at = shape.loc();
            let Some(shape) = ck.static_shape(shape) else { return Ty::Error };
            if !check_acc_alloc(ck, dtype, &shape, at) {
                return Ty::Error;
            }
            let ty = Ty::Acc(AccTy { dtype: dtype.value, shape: shape.clone(), sliced: false });
            if !super::regs::check_register_budget(ck, &ty, at) {
                return Ty::Error;
            }
            push_alloc(ck, name, AllocKind::Acc { dtype: dtype.value, shape: shape.clone() }, 0, 0);
            Ty::Acc(AccTy { dtype: dtype.value, shape, sliced: false })
        }
        TypeExpr::Smem { dtype, shape, transforms, span } => {
            check_per_warpgroup(ck, collective, *span);
            let Some(stored) = ck.static_shape(shape) else { return Ty::Error };
            let Some(smem) = smem_type(ck, dtype.value, stored, transforms) else { return Ty::Error };
            let bytes = buffer_bytes(&smem.stored, dtype.value);
            let align = if smem.swizzle.is_some() { SMEM_ALIGN_SWIZZLED } else { SMEM_ALIGN_PLAIN };
            let kind = AllocKind::Smem {
                dtype: dtype.value,
                stored: smem.stored.clone(),
                swizzle: smem.swizzle,
                transposed: smem.transposed,
            };
            let alloc = push_alloc(ck, name, kind, bytes, align);
            account(ck, *span);
            Ty::Smem(SmemTy { alloc, ..smem })
        }
        TypeExpr::Barrier { arrivals, count, span } => {
            check_per_warpgroup(ck, collective, *span);
            let (Some(arrivals), Some(count)) =
                (barrier_const(ck, arrivals.as_ref(), "arrivals"), barrier_const(ck, count.as_ref(), "count"))
            else {
                return Ty::Error;
            };
            let n = count.unwrap_or(1);
            let kind = AllocKind::Barrier { arrivals: arrivals.unwrap_or(1), count: n };
            let alloc = push_alloc(ck, name, kind, MBARRIER_BYTES * n as u64, MBARRIER_BYTES);
            account(ck, *span);
            Ty::Barrier(BarrierTy { alloc, arrivals: arrivals.unwrap_or(1), array: count })
        }
        TypeExpr::Regs { span, .. } | TypeExpr::Scalar(Spanned { span, .. }) => {
            ck.ctx.type_error(
                *span,
                Code::NotAllocatable,
                "run_scoped allocates accumulators, shared memory and barriers",
                "create register arrays with `splat`, loads or arithmetic",
            );
            Ty::Error
        }
    }
}

/// A compile-time barrier parameter (`Barrier<arrivals, count>`): `Some(None)` when absent, `None`
/// when it was rejected.
fn barrier_const(ck: &mut Checker, e: Option<&Expr>, what: &str) -> Option<Option<u32>> {
    let Some(e) = e else { return Some(None) };
    if ck.check_expr(e).is_error() {
        return None;
    }
    match super::scalar::eval_const(ck, e) {
        Some(v) if (1..(1 << 20)).contains(&v) => Some(Some(v as u32)),
        _ => {
            ck.ctx.type_error(
                e,
                Code::BarrierCount,
                format!("a barrier's {what} must be a compile-time integer from 1 to 2^20-1"),
                "mbarrier counts are 20-bit (PTX ISA, mbarrier.init)",
            );
            None
        }
    }
}

/// SEED 000, A5, A6: an accumulator's dtype and shape. Returns whether it is legal.
fn check_acc_alloc(ck: &mut Checker, dtype: &Spanned<DType>, shape: &[i64], span: Loc) -> bool {
    let mut ok = true;
    if dtype.value.is_unsigned() {
        ck.ctx.error(dtype.span, Diag::AccUnsigned { dtype: dtype.value });
        ok = false;
    } else if !legality::WGMMA_OUT.contains(&dtype.value) {
        ck.ctx.error(dtype.span, Diag::AccDtype { dtype: dtype.value });
        ok = false;
    }
    ok & acc::check_acc_shape(ck, shape, span)
}

/// A4: in a kernel of several warpgroups, shared memory and barriers are allocated collectively.
fn check_per_warpgroup(ck: &mut Checker, collective: bool, span: Span) {
    if collective || ck.kernel.attr.warpgroups.value <= 1 {
        return;
    }
    let axis = ck.kernel.attr.warpgroup_axis.as_ref();
    let wg = axis.map_or_else(|| "wg".to_string(), |w| w.to_string());
    ck.ctx.error(span, Diag::SmemNotCollective { wg, declared: axis.is_some() });
}

/// The type of a shared-memory buffer from its transforms: E14 (bad swizzle), E15 (trailing dim).
fn smem_type(ck: &mut Checker, dtype: DType, mut stored: Vec<i64>, transforms: &[Transform]) -> Option<SmemTy> {
    let t = read_transforms(ck, transforms)?;
    if let Some(span) = t.transposed {
        if stored.len() < 2 {
            ck.ctx.type_error(
                span,
                Code::SmemTransform,
                "Transposed needs at least two dimensions",
                "a transposed buffer swaps its last two dimensions",
            );
            return None;
        }
        // The declared shape is the view; storage holds the last two dimensions swapped.
        let n = stored.len();
        stored.swap(n - 1, n - 2);
    }
    if let Some((tile, _, span)) = &t.tile {
        check_tile_fits(ck, tile, &stored, *span)?;
    }
    // A swizzle no row of the table has was reported (`BadSwizzle`): the buffer goes on unswizzled.
    let swizzle = t.swizzle.as_ref().and_then(|s| Swizzle::from_span_bytes(s.value)).unwrap_or(Swizzle::None);
    if let Some(s) = t.swizzle.as_ref().filter(|_| swizzle.is_some()) {
        check_swizzle_width(ck, dtype, &stored, (swizzle, s.span), t.tile.as_ref())?;
    }
    Some(SmemTy { alloc: 0, dtype, stored, transposed: t.transposed.is_some(), swizzle, sliced: false })
}

/// A buffer's transforms, each given at most once.
struct Transforms {
    swizzle: Option<Spanned<u32>>,
    transposed: Option<Span>,
    /// The tile shape, the span of the whole `Tiled<..>` and of its last dimension.
    tile: Option<(Vec<i64>, Span, Span)>,
}

/// Reads the transforms; E14 (second form) for a swizzle that PTX does not have. `None` when any
/// was rejected.
fn read_transforms(ck: &mut Checker, transforms: &[Transform]) -> Option<Transforms> {
    let mut out = Transforms { swizzle: None, transposed: None, tile: None };
    let mut ok = true;
    for t in transforms {
        let (span, what, again) = match t {
            Transform::Swizzle(s) => {
                if s.value != 0 && legality::swizzle_row(s.value).is_none() {
                    ck.ctx.error(s.span, Diag::BadSwizzle { swizzle: s.value });
                    ok = false;
                }
                (s.span, "a swizzle", out.swizzle.replace(s.clone()).is_some())
            }
            Transform::Transposed(span) => (*span, "`Transposed`", out.transposed.replace(*span).is_some()),
            Transform::Tiled(shape) => {
                let last = shape.dims.last().map_or(shape.span, |d| d.span);
                let tile = ck.static_shape(shape);
                ok &= tile.is_some();
                (shape.span, "a tiling", out.tile.replace((tile.unwrap_or_default(), shape.span, last)).is_some())
            }
        };
        if again {
            ck.ctx.type_error(
                span,
                Code::SmemTransform,
                format!("this buffer already has {what}"),
                "give each transform once",
            );
            ok = false;
        }
    }
    ok.then_some(out)
}

/// A `Tiled<..>` tile divides the buffer's trailing dimensions.
fn check_tile_fits(ck: &mut Checker, tile: &[i64], stored: &[i64], span: Span) -> Option<()> {
    let fits = tile.len() <= stored.len() && tile.iter().rev().zip(stored.iter().rev()).all(|(t, s)| s % t == 0);
    if !fits {
        ck.ctx.type_error(
            span,
            Code::SmemTransform,
            format!(
                "the tile {} does not divide the buffer {}",
                crate::diag::shape_str(tile),
                crate::diag::shape_str(stored)
            ),
            "each buffer dimension must be a multiple of the tile's",
        );
    }
    fits.then_some(())
}

/// E15: a swizzled row holds exactly `8 * swizzle / bitwidth` elements; wider buffers are tiled by it
/// (implicitly, or with an explicit `Tiled<rows, width>` whose last dimension is the width).
fn check_swizzle_width(
    ck: &mut Checker,
    dtype: DType,
    stored: &[i64],
    (swizzle, written): (Swizzle, Span),
    tile: Option<&(Vec<i64>, Span, Span)>,
) -> Option<()> {
    let n = legality::swizzle_elems(swizzle, dtype);
    let (shape, span) = match tile {
        Some((tile, _, last)) if tile.last() != Some(&n) => (tile.clone(), *last),
        Some(_) => return Some(()),
        None if stored.last().is_some_and(|last| last % n == 0) => return Some(()),
        None => (stored.to_vec(), written),
    };
    ck.ctx.error(span, Diag::SwizzleTrailingDim { swizzle: swizzle.bytes(), n, shape });
    None
}

/// Bytes of a buffer, saturating: a buffer too large to count is rejected by A9 like any other.
fn buffer_bytes(stored: &[i64], dtype: DType) -> u64 {
    let bits = stored.iter().try_fold(u64::from(dtype.bits()), |bits, d| bits.checked_mul(u64::try_from(*d).ok()?));
    bits.map_or(u64::MAX, |bits| bits.div_ceil(8))
}

/// Places an allocation in shared memory (bytes > 0) and records it.
fn push_alloc(ck: &mut Checker, name: &syn::Ident, kind: AllocKind, bytes: u64, align: u64) -> usize {
    let offset = if bytes > 0 { ck.smem_cursor.div_ceil(align).saturating_mul(align) } else { 0 };
    if bytes > 0 {
        ck.smem_cursor = offset.saturating_add(bytes);
    }
    ck.facts.allocs.push(Alloc { name: name.to_string(), kind, offset, bytes });
    ck.facts.allocs.len() - 1
}

/// Tracks the peak of shared memory in use.
fn account(ck: &mut Checker, span: Span) {
    if ck.smem_cursor > ck.facts.smem_bytes {
        ck.facts.smem_bytes = ck.smem_cursor;
        if ck.smem_cursor > MAX_SMEM_BYTES && ck.smem_peak_span.is_none() {
            ck.smem_peak_span = Some(span);
        }
    }
}

/// A9: the static total against sm_90's limit: the buffers (pipeline stages, barriers, alignment
/// padding) at the allocation where they overflow, else the whole dynamic shared memory (with the
/// register ops' scratch and the alignment slack) at the kernel's name.
pub(super) fn check_smem_total(ck: &mut Checker) {
    ck.facts.dynamic_smem_bytes = super::scratch::dynamic_smem_bytes(ck);
    if ck.facts.smem_bytes > MAX_SMEM_BYTES {
        let span = ck.smem_peak_span.unwrap_or_else(|| ck.kernel.name.span());
        ck.ctx.error(span, Diag::SmemExceeded { bytes: ck.facts.smem_bytes, max: MAX_SMEM_BYTES });
    } else if ck.facts.dynamic_smem_bytes > MAX_SMEM_BYTES {
        let bytes = ck.facts.dynamic_smem_bytes;
        ck.ctx.error(ck.kernel.name.span(), Diag::SmemExceeded { bytes, max: MAX_SMEM_BYTES });
    }
}

/// `run_state(Acc::from_regs(x), |acc| body)`: an accumulator initialised from registers.
pub(super) fn check_run_state(ck: &mut Checker, init: &Expr, param: &syn::Ident, body: &Block) -> Ty {
    let acc = match &init.kind {
        crate::syntax::ast::ExprKind::AccFromRegs(regs) => acc::check_from_regs(ck, regs),
        _ => {
            let ty = ck.check_expr(init);
            if !ty.is_error() {
                ck.ctx.type_error(
                    init,
                    Code::OperandKind,
                    format!("run_state initialises an accumulator from registers, got {ty}"),
                    "write `run_state(Acc::from_regs(x), |acc| { .. })`",
                );
            }
            Ty::Error
        }
    };
    ck.record(init, acc.clone());
    ck.scopes.push(HashMap::new());
    ck.bind(param, acc, false);
    let result = ck.check_block(body);
    ck.scopes.pop();
    check_escape(ck, body, result)
}

/// `set_max_registers(n)`: legal counts, and a register cap at entry (without one, ptxas ignores it).
pub(super) fn check_set_max_registers(ck: &mut Checker, n: &Spanned<u32>) -> Ty {
    if !legality::max_registers_legal(n.value) {
        ck.ctx.type_error(
            n.span,
            Code::RegisterCap,
            format!("set_max_registers takes a multiple of 8 from 24 to 256, got {}", n.value),
            "PTX setmaxnreg accepts 24..=256 in steps of 8",
        );
        return Ty::Unit;
    }
    let Some(cap) = &ck.kernel.attr.max_registers else {
        ck.ctx.type_error(
            n.span,
            Code::RegisterCap,
            "set_max_registers needs a register cap at entry",
            "add `max_registers = ..` to #[kernel] (ptxas ignores setmaxnreg without `.maxnreg`, warning C7508)",
        );
        return Ty::Unit;
    };
    // `setmaxnreg.inc` takes registers from the program's pool (the cap for every thread) and waits
    // until they are free (checked on the H200): even with every other warpgroup down at 24, more
    // than this never comes, and the warpgroup would wait forever.
    let wgs = u64::from(ck.kernel.attr.warpgroups.value.max(1));
    let most = (u64::from(cap.value) * wgs).saturating_sub(24 * (wgs - 1));
    if u64::from(n.value) > most {
        ck.ctx.type_error(
            n.span,
            Code::RegisterCap,
            format!(
                "set_max_registers({}) can never be granted: `max_registers = {}` for {wgs} warpgroup{} leaves \
                 one warpgroup at most {most}",
                n.value,
                cap.value,
                if wgs == 1 { "" } else { "s" }
            ),
            "raise max_registers, or lower the other warpgroups first with set_max_registers",
        );
    }
    Ty::Unit
}
