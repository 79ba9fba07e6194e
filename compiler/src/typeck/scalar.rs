//! Scalars: literals, names, arithmetic, comparisons, casts, and compile-time evaluation of consts
//! and shapes.

use super::{regs, Checker, Ty};
use crate::codes::Code;
use crate::syntax::ast::{BinOp, Expr, ExprKind, Spanned, UnOp};
use crate::types::{Class, DType};

pub(super) fn infer(ck: &mut Checker, e: &Expr) -> Ty {
    match &e.kind {
        ExprKind::Int(v, d) => check_int_literal(ck, e, *v, *d),
        ExprKind::Float(_, d) => match d {
            Some(d) if !d.is_float() => {
                ck.ctx.type_error(
                    e,
                    Code::Literal,
                    format!("a float literal cannot be {d}"),
                    "use a float suffix such as `f32`",
                );
                Ty::Error
            }
            _ => Ty::Scalar(d.unwrap_or(DType::F32)),
        },
        ExprKind::Bool(_) => Ty::Scalar(DType::Bool),
        ExprKind::Var(name) => infer_var(ck, name),
        ExprKind::Tuple(items) => Ty::Tuple(items.iter().map(|i| ck.check_expr(i)).collect()),
        ExprKind::Unary { op, operand } => infer_unary(ck, e, *op, operand),
        ExprKind::Binary { op, lhs, rhs } => infer_binary(ck, e, *op, lhs, rhs),
        ExprKind::ScalarCast { value, dtype } => {
            let ty = ck.check_expr(value);
            match ty {
                Ty::Scalar(_) => Ty::Scalar(dtype.value),
                Ty::Error => Ty::Error,
                other => {
                    ck.ctx.type_error(
                        e,
                        Code::OperandKind,
                        format!("`as` converts scalars, not {other}"),
                        "convert register arrays with `.cast::<T>()`",
                    );
                    Ty::Error
                }
            }
        }
        _ => Ty::Error,
    }
}

/// An integer literal has the type of its suffix, or `i32`, and must fit it (PTX would otherwise
/// see an out-of-range immediate).
fn check_int_literal(ck: &mut Checker, e: &Expr, v: i64, suffix: Option<DType>) -> Ty {
    let dtype = suffix.unwrap_or(DType::I32);
    let (lo, hi) = crate::legality::int_range(dtype);
    if dtype.is_int() && !(lo..=hi).contains(&v) {
        let help = match suffix {
            None => format!("an integer without a suffix is an `i32`: write `{v}i64` for a wider one"),
            Some(_) => format!("`{dtype}` holds {lo} to {hi}"),
        };
        ck.ctx.type_error(e, Code::Literal, format!("the literal {v} does not fit {dtype}"), help);
        return Ty::Error;
    }
    Ty::Scalar(dtype)
}

fn infer_var(ck: &mut Checker, name: &syn::Ident) -> Ty {
    let key = name.to_string();
    if let Some(v) = ck.lookup(&key) {
        return v.ty.clone();
    }
    if ck.facts.consts.contains_key(&key) || ck.facts.runtime_dims.contains(&key) {
        return Ty::Scalar(DType::I32);
    }
    if ck.kernel.attr.warpgroup_axis.as_ref().is_some_and(|a| a == name) {
        ck.ctx.type_error(
            name.span(),
            Code::UnknownName,
            format!("`{name}` is the warpgroup axis, not a value"),
            "use `warpgroup_id()` for this warpgroup's index",
        );
        return Ty::Error;
    }
    if ck.ctx.left_out(&key) {
        ck.ctx.type_error(
            name.span(),
            Code::LeftOutParam,
            format!("`{name}` is not a parameter here: its `#[when(..)]` condition is false"),
            "use it only where the condition holds: under an `if` on the same condition, which keeps its \
             branch only where the condition is true",
        );
    } else if !ck.ctx.declaration_rejected(&key) {
        ck.ctx.type_error(
            name.span(),
            Code::UnknownName,
            format!("cannot find `{name}` in this kernel"),
            "declare it with `let`, in `consts(..)`, or as a parameter or a runtime dimension",
        );
    }
    Ty::Error
}

fn infer_unary(ck: &mut Checker, e: &Expr, op: UnOp, operand: &Expr) -> Ty {
    let ty = ck.check_expr(operand);
    match (&ty, op) {
        (Ty::Error, _) => Ty::Error,
        (Ty::Scalar(DType::Bool), UnOp::Not) => ty,
        (Ty::Scalar(d), UnOp::Not) if d.is_int() => ty,
        (Ty::Scalar(d), UnOp::Neg) if d.is_float() || d.class() == Class::Signed => ty,
        (Ty::Regs(r), UnOp::Neg) if r.dtype.is_float() || r.dtype.class() == Class::Signed => ty,
        _ => {
            ck.ctx.type_error(
                e,
                Code::OperatorDtype,
                format!("cannot apply `{}` to {ty}", if op == UnOp::Neg { "-" } else { "!" }),
                "negate signed or float values; `!` takes bools and integers",
            );
            Ty::Error
        }
    }
}

fn infer_binary(ck: &mut Checker, e: &Expr, op: BinOp, lhs: &Expr, rhs: &Expr) -> Ty {
    if op == BinOp::Div {
        check_ragged_division(ck, e, lhs);
    }
    let lt = ck.check_expr(lhs);
    let rt = ck.check_expr(rhs);
    if lt.is_error() || rt.is_error() {
        return Ty::Error;
    }
    if matches!(lt, Ty::Regs(_)) || matches!(rt, Ty::Regs(_)) {
        return regs::elementwise_types(ck, e, op, lhs, &lt, rhs, &rt);
    }
    let (Ty::Scalar(a), Ty::Scalar(b)) = (lt.clone(), rt.clone()) else {
        ck.ctx.type_error(
            e,
            Code::OperandKind,
            format!("cannot combine {lt} and {rt} with an operator"),
            "operators take scalars and register arrays",
        );
        return Ty::Error;
    };
    match unify(ck, e, (lhs, a), (rhs, b)) {
        Some(d) => scalar_result(ck, e, op, d),
        None => Ty::Error,
    }
}

/// `M / 128` with a ragged `M` counts whole tiles only, so the partial last one would be left
/// out: the kernel counts tiles with `cdiv`.
fn check_ragged_division(ck: &mut Checker, e: &Expr, lhs: &Expr) {
    let ExprKind::Var(name) = &lhs.kind else { return };
    let key = name.to_string();
    if ck.facts.ragged.contains(&key) && ck.lookup(&key).is_none() {
        ck.ctx.type_error(
            e,
            Code::RaggedDivision,
            format!("`{name}` is ragged, so this division leaves out its last, partial tile"),
            format!("count the tiles with `cdiv({name}, ..)`, or drop `{name}` from `ragged(..)`"),
        );
    }
}

/// The one dtype of two scalar operands (`k + 1`, `max(x, 0.5)`): their own when they agree, else
/// an untyped literal takes the other side's when it fits it (an integer literal fits any number
/// type, a float literal the float types); otherwise a type error.
pub(super) fn unify(ck: &mut Checker, e: &Expr, (lhs, a): (&Expr, DType), (rhs, b): (&Expr, DType)) -> Option<DType> {
    if a == b || (lhs.is_untyped_literal() && literal_fits(lhs, b)) {
        Some(b)
    } else if rhs.is_untyped_literal() && literal_fits(rhs, a) {
        Some(a)
    } else {
        ck.ctx.type_error(
            e,
            Code::DtypeMismatch,
            format!("mismatched scalar types {a} and {b}"),
            format!("convert one side with `as {a}`"),
        );
        None
    }
}

pub(super) fn literal_fits(lit: &Expr, target: DType) -> bool {
    match &lit.kind {
        ExprKind::Int(..) => target.is_int() || target.is_float(),
        ExprKind::Float(..) => target.is_float(),
        ExprKind::Unary { operand, .. } => literal_fits(operand, target),
        _ => false,
    }
}

/// The type of `a op a` for scalars, or an error when the operator does not apply.
fn scalar_result(ck: &mut Checker, e: &Expr, op: BinOp, d: DType) -> Ty {
    use BinOp::*;
    let ok = match op {
        Add | Sub | Mul | Div => d.is_int() || d.is_float(),
        Rem | Shl | Shr | BitAnd | BitOr | BitXor => {
            d.is_int() || (d == DType::Bool && matches!(op, BitAnd | BitOr | BitXor))
        }
        And | Or => d == DType::Bool,
        Eq | Ne | Lt | Le | Gt | Ge => true,
    };
    if !ok {
        ck.ctx.type_error(
            e,
            Code::OperatorDtype,
            format!("the operator does not apply to {d}"),
            "arithmetic takes numbers, `&&`/`||` take bools, bit operators take integers",
        );
        return Ty::Error;
    }
    match op {
        Eq | Ne | Lt | Le | Gt | Ge => Ty::Scalar(DType::Bool),
        _ => Ty::Scalar(d),
    }
}

/// Reports unless `ty` is an integer scalar.
pub(super) fn expect_int(ck: &mut Checker, e: &Expr, ty: &Ty, what: &str) -> bool {
    match ty {
        Ty::Scalar(d) if d.is_int() => true,
        Ty::Error => false,
        other => {
            ck.ctx.type_error(
                e,
                Code::ScalarType,
                format!("{what} must be an integer scalar, got {other}"),
                "use an `i32` expression",
            );
            false
        }
    }
}

/// A grid extent is computed on the host at launch: integer arithmetic over literals, consts,
/// runtime dimensions and integer parameters, and nothing that exists only on the device
/// (`program_id`, `warpgroup_id`, ..). Reports the first part that is not; returns whether all are.
pub(super) fn check_grid_extent(ck: &mut Checker, e: &Expr) -> bool {
    use BinOp::*;
    match &e.kind {
        ExprKind::Int(..) | ExprKind::Var(_) | ExprKind::Invalid => true,
        ExprKind::ScalarCast { value: inner, .. } | ExprKind::Unary { op: UnOp::Neg, operand: inner } => {
            check_grid_extent(ck, inner)
        }
        ExprKind::Binary { op: Add | Sub | Mul | Div | Rem | Shl | Shr | BitAnd | BitOr | BitXor, lhs, rhs } => {
            check_grid_extent(ck, lhs) && check_grid_extent(ck, rhs)
        }
        _ => {
            ck.ctx.unsupported(
                e,
                Code::KernelAttribute,
                "this expression in the grid (a grid extent is integer arithmetic over runtime \
                 dimensions, consts and integer parameters, computed at launch)",
            );
            false
        }
    }
}

/// Reports unless `ty` is a 32-bit integer: loop counters, tile coordinates and stage indices are
/// 32-bit registers on the GPU (`i32`; a `u32` is read as one).
pub(super) fn expect_index(ck: &mut Checker, e: &Expr, ty: &Ty, what: &str) -> bool {
    match ty {
        Ty::Scalar(DType::I32 | DType::U32) => true,
        Ty::Error => false,
        Ty::Scalar(d) if d.is_int() => {
            ck.ctx.type_error(
                e,
                Code::ScalarType,
                format!("{what} is a 32-bit integer, got {d}"),
                "convert it with `as i32`",
            );
            false
        }
        other => expect_int(ck, e, other, what),
    }
}

/// `program_id(axis)` and `num_programs(axis)`: the axis must exist in the grid.
pub(super) fn check_grid_axis(ck: &mut Checker, axis: &Spanned<u32>) -> Ty {
    let rank = ck.kernel.attr.grid.len().max(1) as u32;
    if axis.value >= rank {
        ck.ctx.type_error(
            axis.span,
            Code::AxisOutOfRange,
            format!(
                "the grid has {rank} dimension{}, so axis {} does not exist",
                if rank == 1 { "" } else { "s" },
                axis.value
            ),
            "axes count from 0",
        );
        return Ty::Error;
    }
    Ty::Scalar(DType::I32)
}

/// The value of an integer expression known at compile time: `None` for a runtime value, and for an
/// overflow, a division by zero or an out-of-range shift (`BinOp::eval_i64`).
pub(super) fn eval_const(ck: &Checker, e: &Expr) -> Option<i64> {
    evaluate(ck, e, false)
}

/// [`eval_const`], where an immutable `let` of known integers is known too (slice bounds).
pub(super) fn eval_known(ck: &Checker, e: &Expr) -> Option<i64> {
    evaluate(ck, e, true)
}

/// Integer arithmetic over literals and consts, and with `lets` over the known values of local
/// names (a local name shadows a const of the same name either way).
fn evaluate(ck: &Checker, e: &Expr, lets: bool) -> Option<i64> {
    match &e.kind {
        ExprKind::Int(v, _) => Some(*v),
        ExprKind::DeviceCount => ck.kernel.attr.devices.as_ref().map(|d| i64::from(d.value)),
        ExprKind::Var(n) => {
            let key = n.to_string();
            match ck.lookup(&key) {
                Some(var) if lets && matches!(var.ty, Ty::Scalar(d) if d.is_int()) => var.known,
                Some(_) => None,
                None => ck.facts.consts.get(&key).copied(),
            }
        }
        ExprKind::Unary { op: UnOp::Neg, operand } => evaluate(ck, operand, lets)?.checked_neg(),
        ExprKind::Binary { op, lhs, rhs } => op.eval_i64(evaluate(ck, lhs, lets)?, evaluate(ck, rhs, lets)?),
        _ => None,
    }
}

/// Whether `e` is integer arithmetic over literals and consts only, so that `eval_const` fails on
/// it only by overflowing, dividing by zero or shifting out of range, never for a runtime value.
pub(super) fn is_const_arithmetic(ck: &Checker, e: &Expr) -> bool {
    match &e.kind {
        ExprKind::Int(..) => true,
        ExprKind::DeviceCount => ck.kernel.attr.devices.is_some(),
        ExprKind::Var(n) => {
            let key = n.to_string();
            ck.lookup(&key).is_none() && ck.facts.consts.contains_key(&key)
        }
        ExprKind::Unary { op: UnOp::Neg, operand } => is_const_arithmetic(ck, operand),
        ExprKind::Binary { op, lhs, rhs } => {
            let integer = !matches!(
                op,
                BinOp::And | BinOp::Or | BinOp::Eq | BinOp::Ne | BinOp::Lt | BinOp::Le | BinOp::Gt | BinOp::Ge
            );
            integer && is_const_arithmetic(ck, lhs) && is_const_arithmetic(ck, rhs)
        }
        _ => false,
    }
}
