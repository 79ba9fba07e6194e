//! Register arrays: creation, elementwise arithmetic, math, casts, reductions, broadcasts and layout
//! changes. Catalog rows C2-C7; layout inference (what each op produces and requires) lives here.

use super::{scalar, scratch, Checker, RegsTy, Ty};
use crate::codes::Code;
use crate::diag::{Diag, Loc};
use crate::syntax::ast::{BinOp, Expr, Layout, MathFn, ReduceOp, ShapeExpr, Spanned};
use crate::types::DType;
use proc_macro2::Span;

/// The most 32-bit registers one thread can hold (PTX `.maxnreg` and `setmaxnreg` stop at 255-256).
const MAX_THREAD_REGISTERS: u64 = 255;

/// tessel: a register array or an accumulator lives in the registers of its warpgroup's 128 threads,
/// each of which holds at most 255. A larger one cannot exist, and would make the PTX writer emit
/// an instruction per element. Splats count too: they become arrays of their shape when used.
pub(super) fn check_register_budget(ck: &mut Checker, ty: &Ty, at: impl Into<Loc>) -> bool {
    let (what, dtype, shape) = match ty {
        Ty::Regs(r) => ("register array", r.dtype, &r.shape),
        Ty::Acc(a) => ("accumulator", a.dtype, &a.shape),
        _ => return true,
    };
    let bits = shape.iter().try_fold(u64::from(dtype.bits()), |bits, d| bits.checked_mul(u64::try_from(*d).ok()?));
    let per_thread = bits.map(|bits| bits.div_ceil(32 * 128));
    if per_thread.is_some_and(|n| n <= MAX_THREAD_REGISTERS) {
        return true;
    }
    let needs = per_thread.map_or_else(|| "more".to_string(), |n| n.to_string());
    ck.ctx.type_error(
        at,
        Code::TooManyRegisters,
        format!(
            "this {what} of {} {dtype} needs {needs} registers per thread, but a thread has at most 255",
            crate::diag::shape_str(shape)
        ),
        "a warpgroup's 128 threads hold it together: split it into smaller tiles (e.g. several \
         accumulators, or one per warpgroup)",
    );
    false
}

/// Whether `layout` can hold `shape`; reports C6 or a tessel error otherwise.
pub(super) fn check_layout_shape(ck: &mut Checker, layout: Layout, shape: &[i64], span: Span) -> bool {
    let bad = |ck: &mut Checker, what: &str| {
        ck.ctx.type_error(
            span,
            Code::LayoutShape,
            format!("{layout} holds {what}, got shape {}", crate::diag::shape_str(shape)),
            "pick a layout that fits the array, or reshape the computation",
        );
        false
    };
    match layout {
        Layout::Wgmma => match shape {
            [m, n] if m % 64 == 0 && n % 8 == 0 => true,
            [_, _] => {
                ck.ctx.error(span, Diag::ShapeNotWgmmaTile { shape: shape.to_vec() });
                false
            }
            _ => {
                ck.ctx.error(span, Diag::ShapeNot2d { shape: shape.to_vec() });
                false
            }
        },
        Layout::WgmmaRow => {
            matches!(shape, [m] if m % 64 == 0)
                || bad(ck, "one value per row of a Layout::Wgmma array ([M], M a multiple of 64)")
        }
        Layout::WgmmaCol => {
            matches!(shape, [n] if n % 8 == 0)
                || bad(ck, "one value per column of a Layout::Wgmma array ([N], N a multiple of 8)")
        }
        Layout::MmaLhs | Layout::MmaRhs | Layout::MmaAcc => shape.len() == 2 || bad(ck, "2-D mma fragments"),
        Layout::Strided | Layout::Splat => true,
    }
}

/// Whether `to_layout` can move data from one layout to another (C2 otherwise). 2-D layouts convert
/// among themselves through shared memory; a splat becomes anything; nothing becomes a splat; the
/// 1-D row and column vectors of the WGMMA layout only come from reductions.
pub fn conversion_exists(from: Layout, to: Layout) -> bool {
    use Layout::*;
    let two_d = |l| matches!(l, Wgmma | Strided | MmaLhs | MmaRhs | MmaAcc);
    from == to || from == Splat || (two_d(from) && two_d(to))
}

/// Whether `layout_cast` may reinterpret registers without moving them: the layouts must place every
/// element in the same thread and register. The WGMMA accumulator layout of a 64-row array equals the
/// mma accumulator fragments of four warps stacked along M, and for 16-bit data the mma A fragments
/// (PTX ISA, wgmma and mma.m16n8k16 fragment figures).
fn reinterpretable(from: Layout, to: Layout, dtype: DType, shape: &[i64]) -> bool {
    use Layout::*;
    let rows64 = shape.first() == Some(&64) && shape.len() == 2;
    match (from, to) {
        _ if from == to => true,
        (Wgmma, MmaAcc) | (MmaAcc, Wgmma) => rows64,
        (Wgmma, MmaLhs) | (MmaLhs, Wgmma) => rows64 && dtype.bits() == 16,
        _ => false,
    }
}

pub(super) fn same_but_layout(a: &Ty, b: &Ty) -> bool {
    matches!((a, b), (Ty::Regs(x), Ty::Regs(y)) if x.dtype == y.dtype && x.shape == y.shape)
}

fn expect_regs(ck: &mut Checker, e: &Expr, what: &str) -> Option<RegsTy> {
    match ck.check_expr(e) {
        Ty::Regs(r) => Some(r),
        Ty::Error => None,
        other => {
            ck.ctx.type_error(
                e,
                Code::OperandKind,
                format!("{what} takes a register array, got {other}"),
                "load the value into registers first",
            );
            None
        }
    }
}

/// `splat::<T>(value, [shape])`: a register array with one value everywhere.
pub(super) fn check_splat(ck: &mut Checker, dtype: Option<&Spanned<DType>>, value: &Expr, shape: &ShapeExpr) -> Ty {
    let vt = ck.check_expr(value);
    let shape = ck.static_shape(shape);
    let dtype = match (dtype, &vt) {
        (_, Ty::Error) => return Ty::Error,
        (Some(d), Ty::Scalar(v)) if d.value == *v || value.is_untyped_literal() => d.value,
        (None, Ty::Scalar(v)) => *v,
        (_, other) => {
            ck.ctx.type_error(
                value,
                Code::OperandKind,
                format!("splat takes a scalar of the array's dtype, got {other}"),
                "write `splat::<f32>(0.0, [64, 64])`",
            );
            return Ty::Error;
        }
    };
    match shape {
        Some(shape) => Ty::Regs(RegsTy { dtype, shape, layout: Layout::Splat }),
        None => Ty::Error,
    }
}

/// `iota::<T>([shape], axis)`: indices along `axis`, in `Layout::Wgmma` (2-D) for masks.
pub(super) fn check_iota(
    ck: &mut Checker,
    dtype: Option<&Spanned<DType>>,
    shape: &ShapeExpr,
    axis: &Spanned<u32>,
) -> Ty {
    let span = shape.span;
    let Some(shape) = ck.static_shape(shape) else { return Ty::Error };
    if axis.value as usize >= shape.len() {
        ck.ctx.type_error(
            axis.span,
            Code::AxisOutOfRange,
            format!("axis {} is out of range for shape {}", axis.value, crate::diag::shape_str(&shape)),
            "axes count from 0",
        );
        return Ty::Error;
    }
    let dtype = dtype.map_or(DType::I32, |d| d.value);
    if !dtype.is_int() {
        ck.ctx.type_error(
            span,
            Code::OperatorDtype,
            format!("iota produces integers, not {dtype}"),
            "use `iota::<i32>(..)` and cast",
        );
        return Ty::Error;
    }
    if !check_layout_shape(ck, Layout::Wgmma, &shape, span) {
        return Ty::Error;
    }
    Ty::Regs(RegsTy { dtype, shape, layout: Layout::Wgmma })
}

/// Operators with at least one register-array side: C3 (layouts), C4 (shapes), dtypes.
pub(super) fn elementwise_types(ck: &mut Checker, e: &Expr, op: BinOp, lhs: &Expr, lt: &Ty, rhs: &Expr, rt: &Ty) -> Ty {
    let Some(r) = combine(ck, e, lhs, lt, rhs, rt) else { return Ty::Error };
    use BinOp::*;
    let ok = match op {
        Add | Sub | Mul | Div => r.dtype.is_int() || r.dtype.is_float(),
        Rem | Shl | Shr | BitAnd | BitOr | BitXor => r.dtype.is_int(),
        And | Or => r.dtype == DType::Bool,
        Eq | Ne | Lt | Le | Gt | Ge => true,
    };
    if !ok {
        ck.ctx.type_error(
            e,
            Code::OperatorDtype,
            format!("the operator does not apply to {} arrays", r.dtype),
            "arithmetic takes numbers, bit operators integers",
        );
        return Ty::Error;
    }
    match op {
        Eq | Ne | Lt | Le | Gt | Ge => Ty::Regs(RegsTy { dtype: DType::Bool, ..r }),
        _ => Ty::Regs(r),
    }
}

/// `max(x, y)`, `min(x, y)`.
pub(super) fn check_elementwise(ck: &mut Checker, e: &Expr, lhs: &Expr, rhs: &Expr) -> Ty {
    let lt = ck.check_expr(lhs);
    let rt = ck.check_expr(rhs);
    elementwise_ty(ck, e, (lhs, lt), (rhs, rt))
}

/// The type of two checked operands combined elementwise: two scalars of one dtype (an untyped
/// literal adopting the other's), or a register array (`combine`).
fn elementwise_ty(ck: &mut Checker, e: &Expr, (lhs, lt): (&Expr, Ty), (rhs, rt): (&Expr, Ty)) -> Ty {
    if lt.is_error() || rt.is_error() {
        return Ty::Error;
    }
    if let (Ty::Scalar(a), Ty::Scalar(b)) = (&lt, &rt) {
        return scalar::unify(ck, e, (lhs, *a), (rhs, *b)).map_or(Ty::Error, Ty::Scalar);
    }
    combine(ck, e, lhs, &lt, rhs, &rt).map_or(Ty::Error, Ty::Regs)
}

/// The type of an elementwise combination, with scalars broadcast and splats taking the other layout.
fn combine(ck: &mut Checker, e: &Expr, lhs: &Expr, lt: &Ty, rhs: &Expr, rt: &Ty) -> Option<RegsTy> {
    match (lt, rt) {
        (Ty::Regs(a), Ty::Regs(b)) => {
            if a.dtype != b.dtype {
                ck.ctx.type_error(
                    e,
                    Code::DtypeMismatch,
                    format!("mismatched dtypes {} and {}", a.dtype, b.dtype),
                    format!("cast one side: `.cast::<{}>()`", a.dtype),
                );
                return None;
            }
            if a.shape != b.shape {
                ck.ctx.error(e, Diag::IncompatibleShapes { lhs: a.shape.clone(), rhs: b.shape.clone() });
                return None;
            }
            let layout = match (a.layout, b.layout) {
                (x, y) if x == y => x,
                (Layout::Splat, y) => y,
                (x, Layout::Splat) => x,
                (x, y) => {
                    ck.ctx.error(e, Diag::IncompatibleLayouts { lhs: x, rhs: y });
                    return None;
                }
            };
            Some(RegsTy { dtype: a.dtype, shape: a.shape.clone(), layout })
        }
        (Ty::Regs(r), Ty::Scalar(d)) | (Ty::Scalar(d), Ty::Regs(r)) => {
            let scalar_side = if matches!(lt, Ty::Scalar(_)) { lhs } else { rhs };
            if *d != r.dtype && !(scalar_side.is_untyped_literal() && scalar::literal_fits(scalar_side, r.dtype)) {
                ck.ctx.type_error(
                    scalar_side,
                    Code::DtypeMismatch,
                    format!("a {d} scalar cannot combine with a {} array", r.dtype),
                    format!("convert the scalar with `as {}`", r.dtype),
                );
                return None;
            }
            Some(r.clone())
        }
        _ => {
            ck.ctx.type_error(
                e,
                Code::OperandKind,
                format!("cannot combine {lt} and {rt}"),
                "elementwise operations take register arrays and scalars",
            );
            None
        }
    }
}

/// The dtype of `ty`, the type of `arg` that `what` takes: a scalar or a register array (anything
/// else is an error; `None` for an error reported before).
fn elem_dtype_of(ck: &mut Checker, arg: &Expr, ty: &Ty, what: &str) -> Option<DType> {
    if let (None, false) = (ty.elem_dtype(), ty.is_error()) {
        ck.ctx.type_error(
            arg,
            Code::OperandKind,
            format!("{what} register arrays or scalars, got {ty}"),
            "load the value first",
        );
    }
    ty.elem_dtype()
}

/// `exp2(x)` and friends, on float arrays and scalars.
pub(super) fn check_math(ck: &mut Checker, e: &Expr, func: MathFn, arg: &Expr) -> Ty {
    let ty = ck.check_expr(arg);
    let Some(dtype) = elem_dtype_of(ck, arg, &ty, "math functions take") else { return Ty::Error };
    let ok = match func {
        MathFn::Abs => dtype.is_float() || dtype.class() == crate::types::Class::Signed,
        _ => matches!(dtype, DType::F32 | DType::F16 | DType::Bf16),
    };
    if !ok {
        ck.ctx.type_error(
            e,
            Code::OperatorDtype,
            format!("{func:?} is not defined for {dtype}").to_lowercase(),
            "cast to `f32` first: `.cast::<f32>()`",
        );
        return Ty::Error;
    }
    ty
}

/// `fma(a, b, c)`: the operands combine as in `a * b + c` (scalars broadcast, splats take the
/// other layout), and the result is a float.
pub(super) fn check_fma(ck: &mut Checker, e: &Expr, a: &Expr, b: &Expr, c: &Expr) -> Ty {
    let product = check_elementwise(ck, e, a, b);
    let ct = ck.check_expr(c);
    // In the sum the product stands as its typed operand (a literal only if both are).
    let typed = if a.is_untyped_literal() { b } else { a };
    let ty = elementwise_ty(ck, e, (typed, product), (c, ct));
    let Some(dtype) = ty.elem_dtype() else { return ty };
    if !matches!(dtype, DType::F32 | DType::F16 | DType::Bf16) {
        ck.ctx.type_error(
            e,
            Code::OperatorDtype,
            format!("fma is not defined for {dtype}"),
            "for integers, write `a * b + c`",
        );
        return Ty::Error;
    }
    ty
}

/// `x.cast::<T>()`: any numeric dtype to any other, keeping shape and layout.
pub(super) fn check_cast(ck: &mut Checker, value: &Expr, dtype: &Spanned<DType>) -> Ty {
    match ck.check_expr(value) {
        Ty::Regs(r) => Ty::Regs(RegsTy { dtype: dtype.value, ..r }),
        Ty::Scalar(_) => Ty::Scalar(dtype.value),
        Ty::Error => Ty::Error,
        other => {
            ck.ctx.type_error(
                value,
                Code::OperandKind,
                format!("`.cast` converts register arrays and scalars, not {other}"),
                "load the value first",
            );
            Ty::Error
        }
    }
}

/// `x.bitcast::<T>()`: a register array or scalar read as `T`, bit for bit; `T` has the value's
/// width (bool, whose registers are predicates, has no bits to read).
pub(super) fn check_bitcast(ck: &mut Checker, value: &Expr, dtype: &Spanned<DType>) -> Ty {
    let ty = ck.check_expr(value);
    let Some(from) = elem_dtype_of(ck, value, &ty, "`.bitcast` reads") else { return Ty::Error };
    let to = dtype.value;
    if from == DType::Bool || to == DType::Bool {
        ck.ctx.type_error(
            dtype.span,
            Code::OperatorDtype,
            "bools have no bits to reinterpret",
            "convert with `.cast::<T>()` or `as`",
        );
        return Ty::Error;
    }
    if from.bits() != to.bits() {
        let same: Vec<String> = DType::ALL
            .iter()
            .filter(|d| d.bits() == from.bits() && **d != from && **d != DType::Bool)
            .map(|d| d.to_string())
            .collect();
        let help = match same.as_slice() {
            [] => format!("no other dtype has {from}'s {} bits", from.bits()),
            _ => format!("bitcast {from} to a dtype of {} bits: {}", from.bits(), same.join(", ")),
        };
        ck.ctx.type_error(
            dtype.span,
            Code::OperatorDtype,
            format!("a bitcast keeps the width: {from} has {} bits, {to} {}", from.bits(), to.bits()),
            help,
        );
        return Ty::Error;
    }
    match ty {
        Ty::Regs(r) => Ty::Regs(RegsTy { dtype: to, ..r }),
        _ => Ty::Scalar(to),
    }
}

/// `x.sum(axis)`: a `Layout::Wgmma` array reduces to its row (axis 1) or column (axis 0) vector, a
/// splat to a splat, and a 1-D array (a row or column vector, a strided array or a splat) to a
/// scalar that every thread of the warpgroup holds.
pub(super) fn check_reduce(ck: &mut Checker, value: &Expr, _op: ReduceOp, axis: &Spanned<u32>) -> Ty {
    let Some(r) = expect_regs(ck, value, "a reduction") else { return Ty::Error };
    if axis.value as usize >= r.shape.len() {
        ck.ctx.type_error(
            axis.span,
            Code::AxisOutOfRange,
            format!("axis {} is out of range for shape {}", axis.value, crate::diag::shape_str(&r.shape)),
            "axes count from 0",
        );
        return Ty::Error;
    }
    if r.shape.len() == 1 {
        return reduce_to_scalar(ck, value, &r);
    }
    let mut shape = r.shape.clone();
    shape.remove(axis.value as usize);
    let layout = match (r.layout, axis.value) {
        (Layout::Splat, _) => Layout::Splat,
        (Layout::Wgmma, 1) => Layout::WgmmaRow,
        (Layout::Wgmma, 0) => {
            // Column partials cross warps through scratch.
            scratch::need(ck, scratch::column_partials_bytes(r.dtype, r.shape[1]));
            Layout::WgmmaCol
        }
        (layout, _) => {
            ck.ctx.error(value, Diag::Reduction { layout, shape: r.shape.clone() });
            return Ty::Error;
        }
    };
    Ty::Regs(RegsTy { dtype: r.dtype, shape, layout })
}

/// A 1-D array reduced to a scalar. Row vectors and strided arrays are spread over the four
/// warps, whose partials meet in scratch; column vectors and splats are whole in every warp.
fn reduce_to_scalar(ck: &mut Checker, value: &Expr, r: &RegsTy) -> Ty {
    match r.layout {
        Layout::WgmmaRow | Layout::Strided => scratch::need(ck, scratch::warp_partials_bytes(r.dtype)),
        Layout::WgmmaCol | Layout::Splat => {}
        layout @ (Layout::Wgmma | Layout::MmaLhs | Layout::MmaRhs | Layout::MmaAcc) => {
            ck.ctx.error(value, Diag::Reduction { layout, shape: r.shape.clone() });
            return Ty::Error;
        }
    }
    Ty::Scalar(r.dtype)
}

/// `v.broadcast([M, N], layout)`: C5 (layouts), C4 (shapes).
pub(super) fn check_broadcast(ck: &mut Checker, value: &Expr, shape: &ShapeExpr, layout: &Spanned<Layout>) -> Ty {
    let Some(r) = expect_regs(ck, value, "a broadcast") else { return Ty::Error };
    let span = shape.span;
    let Some(target) = ck.static_shape(shape) else { return Ty::Error };
    let kept_axis = match r.layout {
        Layout::Splat => None,
        Layout::WgmmaRow => Some(0),
        Layout::WgmmaCol => Some(1),
        _ => {
            ck.ctx.error(layout.span, Diag::BroadcastLayout { from: r.layout, to: layout.value });
            return Ty::Error;
        }
    };
    if kept_axis.is_some() && layout.value != Layout::Wgmma {
        ck.ctx.error(layout.span, Diag::BroadcastLayout { from: r.layout, to: layout.value });
        return Ty::Error;
    }
    if let Some(axis) = kept_axis {
        if target.len() != 2 {
            ck.ctx.error(span, Diag::IncompatibleShapes { lhs: r.shape.clone(), rhs: target });
            return Ty::Error;
        }
        if target[axis] != r.shape[0] {
            ck.ctx.error(span, Diag::BroadcastVectorLength { from: r.layout, len: r.shape[0], target });
            return Ty::Error;
        }
    }
    if !check_layout_shape(ck, layout.value, &target, span) {
        return Ty::Error;
    }
    Ty::Regs(RegsTy { dtype: r.dtype, shape: target, layout: layout.value })
}

/// `x.to_layout(layout)`: C6 (the target cannot hold the shape), C2 (no conversion).
pub(super) fn check_to_layout(ck: &mut Checker, value: &Expr, layout: &Spanned<Layout>) -> Ty {
    let Some(r) = expect_regs(ck, value, "`.to_layout`") else { return Ty::Error };
    if !conversion_exists(r.layout, layout.value) {
        ck.ctx.error(layout.span, Diag::CannotConvert { from: r.layout, to: layout.value });
        return Ty::Error;
    }
    if !check_layout_shape(ck, layout.value, &r.shape, layout.span) {
        return Ty::Error;
    }
    if scratch::moves_data(r.layout, layout.value) {
        scratch::need(ck, r.shape.iter().product::<i64>() * i64::from(r.dtype.elem_bytes()));
    }
    Ty::Regs(RegsTy { layout: layout.value, ..r })
}

/// `x.layout_cast(layout)`: reinterpretation, legal only where registers already line up.
pub(super) fn check_layout_cast(ck: &mut Checker, value: &Expr, layout: &Spanned<Layout>) -> Ty {
    let Some(r) = expect_regs(ck, value, "`.layout_cast`") else { return Ty::Error };
    let ok = r.layout == Layout::Splat || reinterpretable(r.layout, layout.value, r.dtype, &r.shape);
    if !ok && conversion_exists(r.layout, layout.value) {
        ck.ctx.error(layout.span, Diag::CannotReinterpret { from: r.layout, to: layout.value });
        return Ty::Error;
    }
    if !ok {
        ck.ctx.error(layout.span, Diag::CannotConvert { from: r.layout, to: layout.value });
        return Ty::Error;
    }
    if !check_layout_shape(ck, layout.value, &r.shape, layout.span) {
        return Ty::Error;
    }
    Ty::Regs(RegsTy { layout: layout.value, ..r })
}

/// C7: a loop-carried register array must leave the body in the layout it entered with.
pub(super) fn check_loop_carry(ck: &mut Checker, before: &[(String, Ty)], body_span: Span) {
    for (index, (name, entry)) in before.iter().enumerate() {
        let Some(var) = ck.lookup(name).cloned() else { continue };
        if let (Ty::Regs(a), Ty::Regs(b)) = (entry, &var.ty) {
            if a.layout != b.layout && a.shape == b.shape && a.dtype == b.dtype {
                let span = var.assigned_at.unwrap_or_else(|| body_span.into());
                ck.ctx.error(span, Diag::LoopCarryLayout { index, out: b.layout, carry: a.layout });
                if let Some(v) = ck.lookup_mut(name) {
                    v.ty = entry.clone();
                }
            }
        }
    }
}
