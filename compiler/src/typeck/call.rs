//! Inlined calls of kernel functions (`syntax::inline`): the arguments against the parameters'
//! declared types, the body in the call's context, and its value against the return type.
//!
//! The arguments are checked in the caller's context (their errors point at the call's arguments
//! and need no note); everything in the body is checked inside the call (`Calls::within`), so its
//! errors, at the function's tokens, get a note at the call that instantiated them.

use super::{scalar, Checker, Ty};
use crate::codes::Code;
use crate::syntax::ast::{Block, Expr, ExprKind, Stmt, UnOp};
use crate::syntax::function::{Declared, Extent, Function};
use std::collections::HashMap;
use tessel_ir::ty::{DimVal, GmemTy};

/// An inlined call (`call` in `ctx.calls`): its scope, as a `run_scoped` without allocations.
pub(super) fn check(ck: &mut Checker, call: usize, body: &Block) -> Ty {
    let ctx = ck.ctx;
    let Some(site) = ctx.calls.site(call) else { return Ty::Error };
    let f = &*site.function;
    let saved_cursor = ck.smem_cursor;
    ck.scopes.push(HashMap::new());
    if let Some(Stmt::Let { names, init, .. }) = body.stmts.first() {
        bind_arguments(ck, f, names, init);
    }
    let ty = ctx.calls.within(call, || {
        for s in body.stmts.iter().skip(1) {
            ck.check_stmt(s);
        }
        let value = body.tail.as_deref().map_or(Ty::Unit, |t| ck.check_expr(t));
        check_return(ck, f, body, value)
    });
    ck.scopes.pop();
    ck.smem_cursor = saved_cursor;
    ty
}

/// `let (a, b) = (arg0, arg1);`: every argument is checked (in the caller's names) before any
/// parameter is bound.
fn bind_arguments(ck: &mut Checker, f: &Function, names: &[(syn::Ident, bool)], init: &Expr) {
    let value = ck.check_expr(init);
    let (args, tys): (Vec<&Expr>, Vec<Ty>) = match (&init.kind, value) {
        (_, value) if names.len() == 1 => (vec![init], vec![value]),
        (ExprKind::Tuple(items), Ty::Tuple(tys)) => (items.iter().collect(), tys),
        (ExprKind::Tuple(items), _) => (items.iter().collect(), vec![Ty::Error; items.len()]),
        _ => (Vec::new(), Vec::new()),
    };
    let mut bound = Vec::new();
    for ((param, arg), ty) in f.params.iter().zip(&args).zip(tys) {
        let ty = argument(ck, f, param, arg, ty);
        bound.push((ty, scalar::eval_known(ck, arg)));
    }
    if names.len() != 1 {
        ck.record(init, Ty::Tuple(bound.iter().map(|(t, _)| t.clone()).collect()));
    }
    for ((name, mutable), (ty, known)) in names.iter().zip(bound) {
        ck.bind(name, ty, *mutable);
        ck.know(name, *mutable, known);
    }
}

/// One argument against its parameter: the type the parameter is bound to (`Ty::Error` after an
/// error, so that its uses report nothing more).
fn argument(ck: &mut Checker, f: &Function, param: &crate::syntax::function::Param, arg: &Expr, ty: Ty) -> Ty {
    if has_error(&ty) {
        return Ty::Error;
    }
    if let Some(ty) = adopt_literals(ck, arg, &param.ty) {
        return ty;
    }
    match accepts(&param.ty, &ty) {
        // Inside the function the array goes by the parameter's name (in messages about it).
        Some(Ty::Gmem(g)) => return Ty::Gmem(GmemTy { name: param.name.to_string(), ..g }),
        Some(bound) => return bound,
        None => {}
    }
    let help = match &param.ty {
        Declared::Scalar(d) if matches!(ty, Ty::Scalar(_)) => format!("convert it: `.. as {d}`"),
        Declared::Scalar(_) => format!("`{}` is a scalar parameter: pass a scalar value", param.name),
        Declared::Gmem { mutable: true, .. } if matches!(&ty, Ty::Gmem(g) if !g.mutable) => {
            format!("`{}` is written: pass a `GmemMut` parameter of the kernel", param.name)
        }
        _ => format!("pass a {}, or change the type of `{}`", param.ty, param.name),
    };
    ck.ctx.type_error(
        arg,
        Code::FunctionArgument,
        format!("`{}` takes {} for `{}`, but this is {ty}", f.name, param.ty, param.name),
        help,
    );
    Ty::Error
}

/// The body's value against the declared return type.
fn check_return(ck: &mut Checker, f: &Function, body: &Block, value: Ty) -> Ty {
    if has_error(&value) {
        return Ty::Error;
    }
    let tail = body.tail.as_deref();
    if let Some(ty) = tail.and_then(|t| adopt_literals(ck, t, &f.ret)) {
        return ty;
    }
    if let Some(ty) = accepts(&f.ret, &value) {
        return ty;
    }
    match (tail, &f.ret, f.ret_at) {
        (None, declared, Some(at)) => ck.ctx.type_error(
            at,
            Code::FunctionReturn,
            format!("`{}` returns {declared}, but its body has no value", f.name),
            "end the body with the value, without `;`",
        ),
        (Some(tail), Declared::Unit, _) => ck.ctx.type_error(
            tail,
            Code::FunctionReturn,
            format!("`{}` returns nothing, but its body ends in {value}", f.name),
            format!("declare `-> {value}`, or end the body with `;`"),
        ),
        (Some(tail), declared, _) => ck.ctx.type_error(
            tail,
            Code::FunctionReturn,
            format!("`{}` returns {declared}, but this is {value}", f.name),
            "make the body's last expression the declared type, or change the return type",
        ),
        (None, _, None) => {}
    }
    Ty::Error
}

/// An untyped literal (or a tuple with some) where a scalar of another type is declared takes that
/// type, as in a Rust call: `tile_order(t, 8u32)` needs no suffix. Returns the adopted type.
fn adopt_literals(ck: &mut Checker, e: &Expr, declared: &Declared) -> Option<Ty> {
    match (&e.kind, declared) {
        (ExprKind::Tuple(items), Declared::Tuple(parts)) if items.len() == parts.len() => {
            let adopted: Vec<Option<Ty>> = items.iter().zip(parts).map(|(i, d)| adopt_literals(ck, i, d)).collect();
            if adopted.iter().all(Option::is_none) {
                return None;
            }
            let own = |i: &Expr| ck.facts.types.get(i.id as usize).cloned().unwrap_or(Ty::Error);
            let tys = items.iter().zip(adopted).map(|(i, a)| a.unwrap_or_else(|| own(i)));
            let ty = Ty::Tuple(tys.collect());
            Some(ck.record(e, ty))
        }
        (_, Declared::Scalar(d)) if e.is_untyped_literal() && scalar::literal_fits(e, *d) => {
            let (lo, hi) = crate::legality::int_range(*d);
            if let Some(v) = int_value(e).filter(|v| d.is_int() && !(lo..=hi).contains(v)) {
                ck.ctx.type_error(
                    e,
                    Code::Literal,
                    format!("the literal {v} does not fit {d}"),
                    format!("`{d}` holds {lo} to {hi}"),
                );
                return Some(Ty::Error);
            }
            let ty = Ty::Scalar(*d);
            let mut at = e;
            loop {
                ck.record(at, ty.clone());
                match &at.kind {
                    ExprKind::Unary { op: UnOp::Neg, operand } => at = operand,
                    _ => return Some(ty),
                }
            }
        }
        _ => None,
    }
}

/// The value of an integer literal, negated or not.
fn int_value(e: &Expr) -> Option<i64> {
    match &e.kind {
        ExprKind::Int(v, _) => Some(*v),
        ExprKind::Unary { op: UnOp::Neg, operand } => int_value(operand)?.checked_neg(),
        _ => None,
    }
}

/// Whether a value of type `ty` fits `declared`, and if so the type the name is bound to: the
/// value's own (which knows its buffer, its extents), except that a `Gmem` parameter reads a
/// `GmemMut` array and may not store to it.
pub(super) fn accepts(declared: &Declared, ty: &Ty) -> Option<Ty> {
    let fits = match (declared, ty) {
        (Declared::Unit, Ty::Unit) => true,
        (Declared::Scalar(d), Ty::Scalar(t)) => d == t,
        (Declared::Tuple(ds), Ty::Tuple(ts)) if ds.len() == ts.len() => {
            ds.iter().zip(ts).all(|(d, t)| accepts(d, t).is_some_and(|bound| bound == *t))
        }
        (Declared::Regs { dtype, shape, layout }, Ty::Regs(r)) => {
            *dtype == r.dtype && extents_fit(shape, &r.shape) && *layout == r.layout
        }
        (Declared::Acc { dtype, shape }, Ty::Acc(a)) => *dtype == a.dtype && extents_fit(shape, &a.shape),
        (Declared::Smem { dtype, shape, swizzle, transposed }, Ty::Smem(s)) => {
            *dtype == s.dtype
                && extents_fit(shape, &s.shape())
                && *swizzle == s.swizzle.bytes()
                && *transposed == s.transposed
        }
        (Declared::Barrier { arrivals, count }, Ty::Barrier(b)) => {
            extent_fits(arrivals, i64::from(b.arrivals))
                && match (count, b.array) {
                    (None, None) => true,
                    (Some(c), Some(n)) => extent_fits(c, i64::from(n)),
                    _ => false,
                }
        }
        (Declared::Gmem { dtype, shape, mutable }, Ty::Gmem(g)) => {
            let dims_fit = shape.len() == g.shape.len()
                && shape.iter().zip(&g.shape).all(|(e, d)| match (e, d) {
                    (Extent::Any(_), _) => true,
                    (Extent::Exactly(v), DimVal::Static(s)) => v == s,
                    (Extent::Exactly(_), DimVal::Runtime(_)) => false,
                });
            if !(*dtype == g.dtype && dims_fit && (g.mutable || !*mutable)) {
                return None;
            }
            return Some(Ty::Gmem(GmemTy { mutable: *mutable, ..g.clone() }));
        }
        _ => false,
    };
    fits.then(|| ty.clone())
}

/// Whether a type is, or holds, the type of something already reported.
fn has_error(ty: &Ty) -> bool {
    match ty {
        Ty::Error => true,
        Ty::Tuple(parts) => parts.iter().any(has_error),
        _ => false,
    }
}

fn extents_fit(declared: &[Extent], shape: &[i64]) -> bool {
    declared.len() == shape.len() && declared.iter().zip(shape).all(|(e, v)| extent_fits(e, *v))
}

fn extent_fits(e: &Extent, v: i64) -> bool {
    match e {
        Extent::Exactly(d) => *d == v,
        Extent::Any(_) => true,
    }
}
