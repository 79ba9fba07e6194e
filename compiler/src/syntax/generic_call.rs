//! The generic arguments of a call of a generic kernel function: `load::<T, 2>(..)` names the
//! instance of `fn load<T, const COPIES: usize>` that the call inlines.
//!
//! The arguments are written, never inferred: in an instance of a generic kernel they are the
//! instance's values by the time the call is read (`T` is `bf16` there), and a const argument may
//! be any integer known when the kernel is read (`known::int`: literals, consts, unrolled
//! counters), as a literal or a name (`load::<T, WN>`) or a block (`load::<T, { 2 * WN }>`).

use super::expr::lower_expr;
use super::function::{Function, GenericKind, GenericValue};
use super::{known, peel, peel_ty};
use crate::codes::Code;
use crate::diag::{Ctxt, Loc};
use crate::types::DType;
use syn::spanned::Spanned as _;
use syn::GenericArgument;

/// The values `seg`'s `::<..>` gives `f`'s generic parameters, in order; `None` when any is
/// missing or wrong (reported).
pub fn values(ctx: &Ctxt, f: &Function, seg: &syn::PathSegment) -> Option<Vec<GenericValue>> {
    let example = example(f);
    let syn::PathArguments::AngleBracketed(args) = &seg.arguments else {
        let message = format!("`{}` is generic over {}: name its instance", f.name, names(f));
        let help = format!("write `{}::<{example}>(..)`", f.name);
        ctx.type_error(seg.ident.span(), Code::FunctionGenerics, message, help);
        return None;
    };
    if args.args.len() != f.generics.len() {
        let message = format!(
            "`{}` has {} generic parameter{} ({}), and this call gives {}",
            f.name,
            f.generics.len(),
            if f.generics.len() == 1 { "" } else { "s" },
            names(f),
            args.args.len()
        );
        let at = Loc::new(args.lt_token.span, args.gt_token.span);
        ctx.type_error(at, Code::FunctionGenerics, message, format!("write `{}::<{example}>(..)`", f.name));
        return None;
    }
    let values: Vec<Option<GenericValue>> =
        f.generics.iter().zip(&args.args).map(|(p, a)| value(ctx, &p.name, &p.kind, a)).collect();
    values.into_iter().collect()
}

/// One argument for the parameter `name`.
fn value(ctx: &Ctxt, name: &syn::Ident, kind: &GenericKind, arg: &GenericArgument) -> Option<GenericValue> {
    let at = super::function::tokens_loc(arg).unwrap_or_else(|| arg.span().into());
    match kind {
        GenericKind::Dtype => {
            let dtype = match arg {
                GenericArgument::Type(t) => match peel_ty(t) {
                    syn::Type::Path(p) if p.qself.is_none() => {
                        p.path.get_ident().and_then(|i| DType::from_name(&i.to_string()))
                    }
                    _ => None,
                },
                _ => None,
            };
            if dtype.is_none() {
                let message = format!("expected a dtype for the type parameter `{name}`");
                ctx.type_error(at, Code::FunctionGenerics, message, "write a dtype such as `bf16`");
            }
            dtype.map(GenericValue::Dtype)
        }
        GenericKind::Int { max, .. } => {
            let value = match arg {
                GenericArgument::Const(e) => known::int(ctx, &lower_expr(ctx, braced(e))),
                // A name parses as a type: a const of the kernel (`load::<WN>`).
                GenericArgument::Type(t) => match peel_ty(t) {
                    syn::Type::Path(p) if p.qself.is_none() => p.path.get_ident().and_then(|i| ctx.known_const(i)),
                    _ => None,
                },
                _ => None,
            };
            match value.and_then(|v| u64::try_from(v).ok()).filter(|v| v <= max) {
                Some(v) => Some(GenericValue::Int(v)),
                None => {
                    let message = format!(
                        "expected an integer from 0 to {max}, known when the kernel is read, for the const parameter \
                         `{name}`"
                    );
                    let help =
                        "write a literal, a const or a generic parameter of the kernel, or `{ expression }` of them";
                    ctx.type_error(at, Code::FunctionGenerics, message, help);
                    None
                }
            }
        }
    }
}

/// The expression of a const argument: `{ 2 * WN }`'s inside its braces.
fn braced(e: &syn::Expr) -> &syn::Expr {
    match peel(e) {
        syn::Expr::Block(b) if b.attrs.is_empty() && b.label.is_none() => match b.block.stmts.as_slice() {
            [syn::Stmt::Expr(inner, None)] => braced(inner),
            _ => e,
        },
        other => other,
    }
}

/// `` `T` and `N` ``.
fn names(f: &Function) -> String {
    let names: Vec<String> = f.generics.iter().map(|p| format!("`{}`", p.name)).collect();
    match names.as_slice() {
        [one] => one.clone(),
        [init @ .., last] => format!("{} and {last}", init.join(", ")),
        [] => String::new(),
    }
}

/// `bf16, 64`: values of the right kinds, for messages.
fn example(f: &Function) -> String {
    let values: Vec<&str> = f
        .generics
        .iter()
        .map(|p| match p.kind {
            GenericKind::Dtype => "bf16",
            GenericKind::Int { .. } => "64",
        })
        .collect();
    values.join(", ")
}
