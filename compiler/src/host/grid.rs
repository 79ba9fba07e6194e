//! The grid: the attribute's `grid = (..)` expressions, translated into Rust that evaluates them at
//! launch over the bound runtime dimensions, the consts and the integer parameters.
//!
//! The translation computes in `tessel::__private::GridValue`, an `i64` whose operators are
//! checked, so an overflow or a division by zero becomes an `Error`, never a panic or a wrapped
//! grid; a non-positive extent is an `Error` too.

use super::local;
use super::params::Scalar;
use crate::diag::Ctxt;
use crate::syntax::ast::{BinOp, Expr, ExprKind, Kernel, ParamTy, UnOp};
use crate::typeck::Facts;
use proc_macro2::TokenStream;
use quote::quote;

/// The grid as a `[u32; 3]` expression (missing axes are 1), each extent a `Result` checked with
/// `?`. Expressions outside grid arithmetic are reported to `ctx`.
pub(crate) fn grid(ctx: &Ctxt, kernel: &Kernel, facts: &Facts) -> TokenStream {
    let mut extents: Vec<TokenStream> = kernel
        .attr
        .grid
        .iter()
        .enumerate()
        .map(|(axis, e)| {
            let value = value(ctx, kernel, facts, e);
            let text = render(e);
            quote!(::tessel::__private::grid_extent(self::ENTRY, #axis, #text, #value)?)
        })
        .collect();
    extents.resize_with(3, || quote!(1));
    quote!([#(#extents),*])
}

/// `e` as a `GridValue` expression.
fn value(ctx: &Ctxt, kernel: &Kernel, facts: &Facts, e: &Expr) -> TokenStream {
    let gv = quote!(::tessel::__private::GridValue);
    match &e.kind {
        ExprKind::Int(v, _) => quote!(#gv::new(#v)),
        ExprKind::Var(name) => var(ctx, kernel, facts, name),
        ExprKind::ScalarCast { value: inner, .. } => value(ctx, kernel, facts, inner),
        ExprKind::Unary { op: UnOp::Neg, operand } => {
            let operand = value(ctx, kernel, facts, operand);
            quote!((-#operand))
        }
        ExprKind::Binary { op, lhs, rhs } => match operator(*op) {
            Some(op) => {
                let (lhs, rhs) = (value(ctx, kernel, facts, lhs), value(ctx, kernel, facts, rhs));
                quote!((#lhs #op #rhs))
            }
            None => unsupported(ctx, e),
        },
        // Typeck has already reported anything that is not an integer expression.
        ExprKind::Invalid => quote!(#gv::OVERFLOW),
        _ => unsupported(ctx, e),
    }
}

fn unsupported(ctx: &Ctxt, e: &Expr) -> TokenStream {
    ctx.unsupported(
        e.span,
        "this expression in the grid (a grid extent is integer arithmetic over runtime dimensions, \
         consts and integer parameters)",
    );
    quote!(::tessel::__private::GridValue::OVERFLOW)
}

/// A name in the grid, resolved as `typeck` resolves it: parameters, then consts, then runtime
/// dimensions.
fn var(ctx: &Ctxt, kernel: &Kernel, facts: &Facts, name: &syn::Ident) -> TokenStream {
    let gv = quote!(::tessel::__private::GridValue);
    let key = name.to_string();
    if let Some(p) = kernel.params.iter().find(|p| p.name == key) {
        let param = &p.name;
        return match &p.ty {
            ParamTy::Scalar(d) => match Scalar::of(d.value) {
                Some(Scalar::I32 | Scalar::U32 | Scalar::I64) => {
                    quote!(#gv::new(::core::primitive::i64::from(#param)))
                }
                Some(Scalar::U64) => quote!(#gv::from_u64(#param)),
                // Reported by `params` (unsupported scalar) or by typeck (not an integer).
                Some(Scalar::F32) | None => quote!(#gv::OVERFLOW),
            },
            // Typeck rejects a global array in integer arithmetic.
            ParamTy::Gmem { .. } => quote!(#gv::OVERFLOW),
        };
    }
    if let Some(v) = facts.consts.get(&key) {
        return quote!(#gv::new(#v));
    }
    if facts.runtime_dims.contains(&key) {
        let dim = local(&format!("dim_{key}"));
        return quote!(#gv::from_usize(#dim));
    }
    ctx.unsupported(name.span(), format!("`{name}` in the grid"));
    quote!(#gv::OVERFLOW)
}

fn operator(op: BinOp) -> Option<TokenStream> {
    Some(match op {
        BinOp::Add => quote!(+),
        BinOp::Sub => quote!(-),
        BinOp::Mul => quote!(*),
        BinOp::Div => quote!(/),
        BinOp::Rem => quote!(%),
        BinOp::Shl => quote!(<<),
        BinOp::Shr => quote!(>>),
        BinOp::BitAnd => quote!(&),
        BinOp::BitOr => quote!(|),
        BinOp::BitXor => quote!(^),
        BinOp::And | BinOp::Or | BinOp::Eq | BinOp::Ne | BinOp::Lt | BinOp::Le | BinOp::Gt | BinOp::Ge => return None,
    })
}

/// The expression as the user wrote it, for error messages (nested operations in parentheses).
pub(crate) fn render(e: &Expr) -> String {
    match &e.kind {
        ExprKind::Int(v, _) => v.to_string(),
        ExprKind::Var(name) => name.to_string(),
        ExprKind::ScalarCast { value, dtype } => format!("{} as {}", render_operand(value), dtype.value),
        ExprKind::Unary { op: UnOp::Neg, operand } => format!("-{}", render_operand(operand)),
        ExprKind::Unary { op: UnOp::Not, operand } => format!("!{}", render_operand(operand)),
        ExprKind::Binary { op, lhs, rhs } => {
            let op = operator(*op).map_or_else(|| "?".to_string(), |t| t.to_string());
            format!("{} {op} {}", render_operand(lhs), render_operand(rhs))
        }
        _ => "..".to_string(),
    }
}

fn render_operand(e: &Expr) -> String {
    match &e.kind {
        ExprKind::Binary { .. } | ExprKind::ScalarCast { .. } => format!("({})", render(e)),
        _ => render(e),
    }
}
