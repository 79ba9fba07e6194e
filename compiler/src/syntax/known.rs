//! Values known when a kernel is read: integer and boolean expressions of literals, consts (the
//! attribute's `consts(..)` and the body's `const` items), the counters of enclosing `#[unroll]`
//! loops, and, in an instance of a generic kernel or a kernel function, the generic parameters
//! (which are literals by then: `generic::subst`).
//!
//! What they decide is decided before anything is checked: the bounds of an unrolled loop, the
//! branch of an `if` whose condition is known (`expr::lower_if`), a flag written `multicast =
//! CLUSTER == 2` and an allocation written `#[when(SPLIT > 1)] part: Smem<..>`. `typeck` evaluates
//! every const again on its own, with its checks; this is the part of that evaluation the reading
//! needs.

use super::ast::{Expr, ExprKind, UnOp};
use super::expr::{loc_of, lower_expr};
use crate::codes::Code;
use crate::diag::Ctxt;
use tessel_ir::ops::BinOp;

/// An integer expression of literals, known consts and (already substituted) unrolled counters,
/// or `None`.
pub fn int(ctx: &Ctxt, e: &Expr) -> Option<i64> {
    match &e.kind {
        ExprKind::Int(value, _) => Some(*value),
        ExprKind::Var(name) => ctx.known_const(name),
        ExprKind::DeviceCount => ctx.devices().map(i64::from),
        ExprKind::Binary { op, lhs, rhs } => op.eval_i64(int(ctx, lhs)?, int(ctx, rhs)?),
        ExprKind::Unary { op: UnOp::Neg, operand } => int(ctx, operand)?.checked_neg(),
        _ => None,
    }
}

/// A condition of comparisons of known integers, `true`, `false`, `!`, `&&` and `||`, or `None`.
/// As in Rust, `a || b` is true when `a` is, and `a && b` false when `a` is, whatever `b`: so
/// `D == 128 || part == w` is known in the instances of D 128 and left to run in the others.
pub fn condition(ctx: &Ctxt, e: &Expr) -> Option<bool> {
    match &e.kind {
        ExprKind::Bool(b) => Some(*b),
        ExprKind::Unary { op: UnOp::Not, operand } => condition(ctx, operand).map(|b| !b),
        ExprKind::Binary { op: BinOp::And, lhs, rhs } => match condition(ctx, lhs)? {
            false => Some(false),
            true => condition(ctx, rhs),
        },
        ExprKind::Binary { op: BinOp::Or, lhs, rhs } => match condition(ctx, lhs)? {
            true => Some(true),
            false => condition(ctx, rhs),
        },
        ExprKind::Binary { op, lhs, rhs } => {
            let (a, b) = (int(ctx, lhs)?, int(ctx, rhs)?);
            match op {
                BinOp::Eq => Some(a == b),
                BinOp::Ne => Some(a != b),
                BinOp::Lt => Some(a < b),
                BinOp::Le => Some(a <= b),
                BinOp::Gt => Some(a > b),
                BinOp::Ge => Some(a >= b),
                _ => None,
            }
        }
        _ => None,
    }
}

/// The value of `name = value` for a flag of an operation (`multicast`, `cluster`,
/// `delay_release`): `true`, `false` or a condition known when the kernel is read, such as
/// `CLUSTER == 2` in a generic kernel. Anything else is reported (`None`).
pub fn flag(ctx: &Ctxt, name: &str, value: &syn::Expr) -> Option<bool> {
    let help = format!(
        "write `{name} = true`, or a condition of literals, consts and generic parameters such as `{name} = CLUSTER > 1`"
    );
    decided(ctx, value, &format!("`{name} = ..`"), &help)
}

/// The condition of `#[when(condition)]` on an allocation, reported (`None`) unless known.
pub fn when(ctx: &Ctxt, value: &syn::Expr) -> Option<bool> {
    let help = "write a condition of literals, consts and generic parameters, such as `#[when(SPLIT > 1)]`";
    decided(ctx, value, "the condition of `#[when(..)]`", help)
}

fn decided(ctx: &Ctxt, value: &syn::Expr, what: &str, help: &str) -> Option<bool> {
    let known = condition(ctx, &lower_expr(ctx, value));
    if known.is_none() {
        let message = format!("{what} must be known when the kernel is read");
        ctx.type_error(loc_of(value), Code::KnownValue, message, help);
    }
    known
}
