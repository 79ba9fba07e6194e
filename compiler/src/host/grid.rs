//! The grid: the attribute's `grid = (..)` expressions, translated into Rust that evaluates them at
//! launch over the bound runtime dimensions, the consts and the integer parameters.
//!
//! The translation computes in `tessel::__private::GridValue`, an `i64` whose operators are
//! checked, so an overflow or a division by zero becomes an `Error`, never a panic or a wrapped
//! grid; a non-positive extent is an `Error` too.

use super::local;
use super::params::{HostKind, HostParam, Scalar};
use crate::diag::Ctxt;
use crate::syntax::ast::{self, ExprKind as K, Kernel, UnOp};
use proc_macro2::TokenStream;
use quote::quote;
use tessel_ir::ops::BinOp;
use tessel_ir::program::{Expr, ExprKind, LitValue, Program};

/// The grid as a `[u32; 3]` expression (missing axes are 1), each extent a `Result` checked with
/// `?`. `typeck` admitted only integer arithmetic over literals, consts, runtime dimensions and
/// integer parameters; anything else here is an internal error.
pub(crate) fn grid(ctx: &Ctxt, kernel: &Kernel, program: &Program, params: &[HostParam]) -> TokenStream {
    if params.len() != program.params.len() {
        // `host_params` reported the parameters it could not represent; there is no launch.
        return quote!([1, 1, 1]);
    }
    let mut extents: Vec<TokenStream> = program
        .grid
        .iter()
        .zip(&program.grid_text)
        .enumerate()
        .map(|(axis, (e, text))| {
            let value = value(e, program, params).unwrap_or_else(|what| {
                ctx.internal(kernel.name.span(), format!("the grid's extent `{text}`: {what}"));
                quote!(::tessel::__private::GridValue::OVERFLOW)
            });
            quote!(::tessel::__private::grid_extent(self::ENTRY, #axis, #text, #value)?)
        })
        .collect();
    extents.resize_with(3, || quote!(1));
    quote!([#(#extents),*])
}

/// `e` as a `GridValue` expression, or what it is that no grid extent can be.
fn value(e: &Expr, program: &Program, params: &[HostParam]) -> Result<TokenStream, String> {
    let gv = quote!(::tessel::__private::GridValue);
    Ok(match &e.kind {
        ExprKind::Lit(lit) => match lit.value {
            LitValue::Int(v) => quote!(#gv::new(#v)),
            other => return Err(format!("the literal {other:?}")),
        },
        ExprKind::Const(v) => quote!(#gv::new(#v)),
        ExprKind::Dim(i) => {
            let name = program.runtime_dims.get(*i).ok_or_else(|| format!("runtime dimension {i}"))?;
            let dim = local(&format!("dim_{name}"));
            quote!(#gv::from_usize(#dim))
        }
        ExprKind::Local(slot) => parameter(*slot, params)?,
        ExprKind::ScalarCast { value: inner, .. } => value(inner, program, params)?,
        ExprKind::Unary { op: UnOp::Neg, operand } => {
            let operand = value(operand, program, params)?;
            quote!((-#operand))
        }
        ExprKind::Binary { op, lhs, rhs } => {
            let op = operator(*op).ok_or_else(|| format!("the operator {op:?}"))?;
            let (lhs, rhs) = (value(lhs, program, params)?, value(rhs, program, params)?);
            quote!((#lhs #op #rhs))
        }
        other => return Err(format!("{other:?}")),
    })
}

/// An integer parameter's value (a parameter's frame slot is its index).
fn parameter(slot: usize, params: &[HostParam]) -> Result<TokenStream, String> {
    let gv = quote!(::tessel::__private::GridValue);
    let p = params.get(slot).ok_or_else(|| format!("parameter {slot}"))?;
    let name = p.name;
    match &p.kind {
        HostKind::Scalar { scalar: Scalar::I32 | Scalar::U32 | Scalar::I64, .. } => {
            Ok(quote!(#gv::new(::core::primitive::i64::from(#name))))
        }
        HostKind::Scalar { scalar: Scalar::U64, .. } => Ok(quote!(#gv::from_u64(#name))),
        HostKind::Scalar { scalar: Scalar::F32, .. } | HostKind::Tensor { .. } => {
            Err(format!("the parameter `{name}`, which is no integer"))
        }
    }
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
pub(crate) fn render(e: &ast::Expr) -> String {
    match &e.kind {
        K::Int(v, _) => v.to_string(),
        K::Var(name) => name.to_string(),
        K::ScalarCast { value, dtype } => format!("{} as {}", render_operand(value), dtype.value),
        K::Unary { op: UnOp::Neg, operand } => format!("-{}", render_operand(operand)),
        K::Unary { op: UnOp::Not, operand } => format!("!{}", render_operand(operand)),
        K::Binary { op, lhs, rhs } => {
            let op = operator(*op).map_or_else(|| "?".to_string(), |t| t.to_string());
            format!("{} {op} {}", render_operand(lhs), render_operand(rhs))
        }
        _ => "..".to_string(),
    }
}

fn render_operand(e: &ast::Expr) -> String {
    match &e.kind {
        K::Binary { .. } | K::ScalarCast { .. } => format!("({})", render(e)),
        _ => render(e),
    }
}
