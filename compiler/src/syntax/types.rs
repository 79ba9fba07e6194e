//! Reading tessel's type annotations (`Gmem<..>`, `Smem<..>`, `Acc<..>`, `Regs<..>`, `Barrier<..>`,
//! scalar dtypes) from syn types.
//!
//! Shapes are written as const generic arguments after the dtype, because an attribute macro only
//! receives what rustc parses as Rust: `Acc<f32, 64, 128>`, `Smem<bf16, STAGES, 64, 64, Swizzle128>`,
//! `Gmem<bf16, M, K>`, `Regs<f32, 64, 64, Layout::Wgmma>`. A dimension is an integer literal, a name
//! (a const, or for global arrays a runtime dimension), or a `{ expression }` over consts.
//!
//! Each of these may be a fragment that a `macro_rules!` substituted (`Gmem<$t, M, K>`,
//! `Acc<$acc, 64, $n>`, `x: $t`): it arrives in an invisible group, which is looked through
//! ([`peel_ty`], [`peel`]), and errors point at the tokens inside it, the ones the user wrote.

use super::ast::{Dim, Layout, ParamTy, ShapeExpr, Spanned, Transform, TypeExpr};
use super::expr::lower_expr;
use super::{peel, peel_ty};
use crate::codes::Code;
use crate::diag::Ctxt;
use crate::types::DType;
use syn::spanned::Spanned as _;
use syn::{GenericArgument, PathArguments, Type};

/// The generic arguments of a single-segment path type (through a `macro_rules!` fragment's
/// group), with its name.
pub(super) fn path_parts(ty: &Type) -> Option<(&syn::Ident, Vec<&GenericArgument>)> {
    let Type::Path(tp) = peel_ty(ty) else { return None };
    if tp.qself.is_some() || tp.path.segments.len() != 1 {
        return None;
    }
    let seg = &tp.path.segments[0];
    let args = match &seg.arguments {
        PathArguments::None => Vec::new(),
        PathArguments::AngleBracketed(a) => a.args.iter().collect(),
        PathArguments::Parenthesized(_) => return None,
    };
    Some((&seg.ident, args))
}

/// A dtype argument: `bf16`.
pub fn dtype_of(ctx: &Ctxt, ty: &Type) -> Option<Spanned<DType>> {
    let ty = peel_ty(ty);
    let name = match path_parts(ty) {
        Some((name, args)) if args.is_empty() => name.to_string(),
        _ => {
            ctx.unsupported(ty.span(), Code::TypeSyntax, "expected a dtype (bf16, f16, f32, tf32, f8e4m3, f8e5m2, i4, i8, u8, i16, u16, i32, u32, i64, u64, bool)");
            return None;
        }
    };
    match DType::from_name(&name) {
        Some(d) => Some(Spanned::new(d, ty.span())),
        None => {
            ctx.unsupported(ty.span(), Code::TypeSyntax, format!("`{name}` is not a tessel dtype"));
            None
        }
    }
}

fn arg_dtype(ctx: &Ctxt, arg: Option<&&GenericArgument>, at: proc_macro2::Span) -> Option<Spanned<DType>> {
    match arg {
        Some(GenericArgument::Type(t)) => dtype_of(ctx, t),
        Some(other) => {
            ctx.unsupported(arg_span(other), Code::TypeSyntax, "expected a dtype here");
            None
        }
        None => {
            ctx.unsupported(at, Code::TypeSyntax, "missing dtype argument");
            None
        }
    }
}

/// Whether a generic argument reads as a dimension: a literal, a `{ .. }` block, or a plain name
/// that is not a transform or a layout.
fn is_dim(arg: &GenericArgument) -> bool {
    match arg {
        GenericArgument::Const(_) => true,
        GenericArgument::Type(ty) => match peel_ty(ty) {
            Type::Path(p) if p.qself.is_none() => match p.path.get_ident() {
                Some(id) => {
                    let name = id.to_string();
                    !TRANSFORM_NAMES.contains(&name.as_str()) && Layout::from_name(&name).is_none()
                }
                None => false,
            },
            _ => false,
        },
        _ => false,
    }
}

/// A generic argument's span; for a fragment, that of the user's tokens inside its group.
fn arg_span(arg: &GenericArgument) -> proc_macro2::Span {
    match arg {
        GenericArgument::Type(ty) => peel_ty(ty).span(),
        GenericArgument::Const(e) => peel(e).span(),
        other => other.span(),
    }
}

const TRANSFORM_NAMES: &[&str] = &["Swizzle32", "Swizzle64", "Swizzle128", "NoSwizzle", "Transposed"];

/// A dimension argument as an expression.
fn dim_expr(ctx: &Ctxt, arg: &GenericArgument) -> Option<syn::Expr> {
    match arg {
        GenericArgument::Const(e) => match peel(e) {
            syn::Expr::Block(b) => match b.block.stmts.as_slice() {
                [syn::Stmt::Expr(e, None)] => Some(e.clone()),
                _ => {
                    ctx.unsupported(b.span(), Code::TypeSyntax, "a dimension block holds one expression: `{ BM * 2 }`");
                    None
                }
            },
            _ => Some(e.clone()),
        },
        GenericArgument::Type(ty) if matches!(peel_ty(ty), Type::Path(_)) => type_as_expr(ty),
        other => {
            ctx.unsupported(
                arg_span(other),
                Code::TypeSyntax,
                "expected a dimension (a literal, a name or `{ expression }`)",
            );
            None
        }
    }
}

/// A name read as a type (`BK` in `Smem<bf16, 64, BK>`, or a `$n:expr` fragment naming a const,
/// which syn reads as a type in a generic argument) as the expression it stands for.
fn type_as_expr(ty: &Type) -> Option<syn::Expr> {
    match peel_ty(ty) {
        Type::Path(p) => Some(syn::Expr::Path(syn::ExprPath { attrs: vec![], qself: None, path: p.path.clone() })),
        _ => None,
    }
}

/// The leading run of dimension arguments (after the dtype) and what follows them.
fn split_dims<'a>(args: &'a [&'a GenericArgument]) -> (&'a [&'a GenericArgument], &'a [&'a GenericArgument]) {
    let n = args.iter().take_while(|a| is_dim(a)).count();
    args.split_at(n)
}

fn dims_span(dims: &[&GenericArgument], at: proc_macro2::Span) -> proc_macro2::Span {
    match (dims.first(), dims.last()) {
        (Some(a), Some(b)) => arg_span(a).join(arg_span(b)).unwrap_or_else(|| arg_span(a)),
        _ => at,
    }
}

fn static_shape(ctx: &Ctxt, dims: &[&GenericArgument], at: proc_macro2::Span) -> Option<ShapeExpr> {
    if dims.is_empty() {
        ctx.unsupported(at, Code::TypeSyntax, "missing dimensions after the dtype (e.g. `Acc<f32, 64, 64>`)");
        return None;
    }
    let exprs: Vec<syn::Expr> = dims.iter().filter_map(|d| dim_expr(ctx, d)).collect();
    if exprs.len() != dims.len() {
        return None;
    }
    Some(ShapeExpr { dims: exprs.iter().map(|e| lower_expr(ctx, e)).collect(), span: dims_span(dims, at) })
}

/// A kernel parameter type: `Gmem<T, d0, ..>`, `GmemMut<T, d0, ..>` or a scalar dtype.
pub fn param_ty(ctx: &Ctxt, ty: &Type) -> Option<ParamTy> {
    let ty = peel_ty(ty);
    let span = ty.span();
    match path_parts(ty) {
        Some((name, args)) if name == "Gmem" || name == "GmemMut" => {
            let (dims, rest) = split_dims(args.get(1..).unwrap_or(&[]));
            if dims.is_empty() || !rest.is_empty() {
                ctx.unsupported(
                    span,
                    Code::TypeSyntax,
                    format!("`{name}` takes a dtype and dimensions: `{name}<bf16, M, K>`"),
                );
                reject_dim_names(ctx, dims);
                return None;
            }
            let dtype = arg_dtype(ctx, args.first(), span);
            let elems: Vec<syn::Expr> = dims.iter().filter_map(|d| dim_expr(ctx, d)).collect();
            let shape = elems.iter().filter_map(|e| gmem_dim(ctx, e)).collect::<Vec<_>>();
            match dtype {
                Some(dtype) if shape.len() == dims.len() => {
                    Some(ParamTy::Gmem { dtype, shape, mutable: name == "GmemMut", span })
                }
                _ => {
                    reject_dim_names(ctx, dims);
                    None
                }
            }
        }
        Some((_, args)) if args.is_empty() => dtype_of(ctx, ty).map(ParamTy::Scalar),
        _ => {
            ctx.unsupported(
                span,
                Code::TypeSyntax,
                "kernel parameters are `Gmem<T, d0, ..>`, `GmemMut<T, d0, ..>` or scalars",
            );
            None
        }
    }
}

/// The runtime dimensions a rejected global parameter names (`M` and `K` of `Gmem<f64, M, K>`):
/// they are declared nowhere else, and their uses report nothing more.
fn reject_dim_names(ctx: &Ctxt, dims: &[&GenericArgument]) {
    for d in dims {
        let e = match d {
            GenericArgument::Const(e) => Some(peel(e).clone()),
            GenericArgument::Type(ty) => type_as_expr(ty),
            _ => None,
        };
        if let Some(syn::Expr::Path(p)) = e {
            if let Some(name) = p.path.get_ident() {
                ctx.reject_declaration(name);
            }
        }
    }
}

/// One global dimension: a literal or a name.
fn gmem_dim(ctx: &Ctxt, e: &syn::Expr) -> Option<Dim> {
    match peel(e) {
        syn::Expr::Lit(syn::ExprLit { lit: syn::Lit::Int(i), .. }) => match i.base10_parse::<i64>() {
            Ok(v) => Some(Dim::Lit(Spanned::new(v, i.span()))),
            Err(err) => {
                ctx.unsupported(i.span(), Code::TypeSyntax, err.to_string());
                None
            }
        },
        syn::Expr::Path(p) if p.path.get_ident().is_some() => p.path.get_ident().cloned().map(Dim::Name),
        other => {
            ctx.unsupported(
                other.span(),
                Code::TypeSyntax,
                "a global dimension is a literal or a name (`M`, `K`, a const)",
            );
            None
        }
    }
}

/// A type annotation inside the body.
pub fn type_expr(ctx: &Ctxt, ty: &Type) -> Option<TypeExpr> {
    let ty = peel_ty(ty);
    let span = ty.span();
    let Some((name, args)) = path_parts(ty) else {
        ctx.unsupported(span, Code::TypeSyntax, "this type; kernels use Acc, Smem, Barrier, Regs and scalar dtypes");
        return None;
    };
    let name = name.to_string();
    match name.as_str() {
        "Acc" => {
            let dtype = arg_dtype(ctx, args.first(), span);
            let (dims, rest) = split_dims(args.get(1..).unwrap_or(&[]));
            if let Some(extra) = rest.first() {
                ctx.unsupported(
                    arg_span(extra),
                    Code::TypeSyntax,
                    "`Acc` takes a dtype and dimensions: `Acc<f32, 64, 128>`",
                );
                return None;
            }
            let shape = static_shape(ctx, dims, span)?;
            Some(TypeExpr::Acc { dtype: dtype?, shape, span })
        }
        "Regs" => {
            let dtype = arg_dtype(ctx, args.first(), span);
            let (dims, rest) = split_dims(args.get(1..).unwrap_or(&[]));
            let [layout] = rest else {
                ctx.unsupported(
                    span,
                    Code::TypeSyntax,
                    "`Regs` takes a dtype, dimensions and a layout: `Regs<f32, 64, 64, Layout::Wgmma>`",
                );
                return None;
            };
            let shape = static_shape(ctx, dims, span);
            let layout = layout_arg(ctx, layout);
            Some(TypeExpr::Regs { dtype: dtype?, shape: shape?, layout: layout?, span })
        }
        "Smem" => {
            let dtype = arg_dtype(ctx, args.first(), span);
            let (dims, rest) = split_dims(args.get(1..).unwrap_or(&[]));
            let shape = static_shape(ctx, dims, span);
            let transforms: Vec<Transform> = rest.iter().filter_map(|a| transform(ctx, a)).collect();
            if transforms.len() != rest.len() {
                return None;
            }
            Some(TypeExpr::Smem { dtype: dtype?, shape: shape?, transforms, span })
        }
        "Barrier" => {
            if args.len() > 2 {
                ctx.unsupported(span, Code::TypeSyntax, "`Barrier<arrivals, count>` takes at most two arguments");
                return None;
            }
            let mut consts = args.iter().map(|a| const_arg(ctx, a));
            let arrivals = consts.next().flatten();
            let count = consts.next().flatten();
            Some(TypeExpr::Barrier { arrivals, count, span })
        }
        _ if args.is_empty() && DType::from_name(&name).is_some() => dtype_of(ctx, ty).map(TypeExpr::Scalar),
        _ => {
            ctx.unsupported(
                span,
                Code::TypeSyntax,
                format!("the type `{name}`; kernels use Acc, Smem, Barrier, Regs and scalar dtypes"),
            );
            None
        }
    }
}

/// A compile-time constant generic argument: `2`, `{ STAGES }` or a const name.
fn const_arg(ctx: &Ctxt, arg: &GenericArgument) -> Option<crate::syntax::ast::Expr> {
    match arg {
        GenericArgument::Const(e) => Some(lower_expr(ctx, e)),
        GenericArgument::Type(ty) if matches!(peel_ty(ty), Type::Path(p) if p.path.get_ident().is_some()) => {
            type_as_expr(ty).map(|e| lower_expr(ctx, &e))
        }
        other => {
            ctx.unsupported(arg_span(other), Code::TypeSyntax, "expected a compile-time integer");
            None
        }
    }
}

/// `Layout::Wgmma` as a generic argument.
fn layout_arg(ctx: &Ctxt, arg: &GenericArgument) -> Option<Spanned<Layout>> {
    if let GenericArgument::Type(ty) = arg {
        if let Type::Path(p) = peel_ty(ty) {
            return layout_path(ctx, &p.path);
        }
    }
    ctx.unsupported(arg_span(arg), Code::TypeSyntax, "expected a layout such as `Layout::Wgmma`");
    None
}

/// `Layout::Name` (also accepted as plain `Name`).
pub fn layout_path(ctx: &Ctxt, path: &syn::Path) -> Option<Spanned<Layout>> {
    let segs: Vec<String> = path.segments.iter().map(|s| s.ident.to_string()).collect();
    let name = match segs.as_slice() {
        [l, n] if l == "Layout" => n,
        [n] => n,
        _ => "",
    };
    // Point at the variant (`Strided` in `Layout::Strided`): that is the token a fix changes.
    let span = path.segments.last().map_or_else(|| path.span(), |s| s.ident.span());
    match Layout::from_name(name) {
        Some(l) => Some(Spanned::new(l, span)),
        None => {
            ctx.unsupported(
                path.span(),
                Code::TypeSyntax,
                "expected a layout: Layout::Wgmma, WgmmaRow, WgmmaCol, Strided, Splat, MmaLhs, MmaRhs or MmaAcc",
            );
            None
        }
    }
}

/// A shared-memory transform: `Swizzle128`, `Swizzle<16>`, `NoSwizzle`, `Tiled<8, 64>`, `Transposed`.
pub(super) fn transform(ctx: &Ctxt, arg: &GenericArgument) -> Option<Transform> {
    let span = arg_span(arg);
    let GenericArgument::Type(ty) = arg else {
        ctx.unsupported(
            span,
            Code::SmemTransform,
            "expected a shared-memory transform (Swizzle32/64/128, Tiled<rows, cols>, Transposed)",
        );
        return None;
    };
    let Some((name, args)) = path_parts(ty) else {
        ctx.unsupported(
            span,
            Code::SmemTransform,
            "expected a shared-memory transform (Swizzle32/64/128, Tiled<rows, cols>, Transposed)",
        );
        return None;
    };
    let name = name.to_string();
    let fixed = |bytes| Some(Transform::Swizzle(Spanned::new(bytes, span)));
    // `Swizzle<128>`'s literal (also one that a `macro_rules!` passed on).
    let bytes = match args.as_slice() {
        [GenericArgument::Const(e)] => match peel(e) {
            syn::Expr::Lit(syn::ExprLit { lit: syn::Lit::Int(i), .. }) => Some(i),
            _ => None,
        },
        _ => None,
    };
    match (name.as_str(), args.as_slice(), bytes) {
        ("Swizzle32", [], _) => fixed(32),
        ("Swizzle64", [], _) => fixed(64),
        ("Swizzle128", [], _) => fixed(128),
        ("NoSwizzle", [], _) => fixed(0),
        ("Transposed", [], _) => Some(Transform::Transposed(span)),
        ("Swizzle", _, Some(i)) => match i.base10_parse::<u32>() {
            Ok(v) => Some(Transform::Swizzle(Spanned::new(v, i.span()))),
            Err(_) => {
                ctx.type_error(
                    i.span(),
                    Code::SmemTransform,
                    format!("a swizzle is a number of bytes, got `{i}`"),
                    "write `Swizzle<32>`, `Swizzle<64>` or `Swizzle<128>` (`NoSwizzle` for none)",
                );
                None
            }
        },
        ("Tiled", dims, _) if !dims.is_empty() && dims.iter().all(|d| is_dim(d)) => {
            static_shape(ctx, dims, span).map(Transform::Tiled)
        }
        _ => {
            ctx.unsupported(
                span,
                Code::SmemTransform,
                "expected a shared-memory transform (Swizzle32/64/128, Tiled<rows, cols>, Transposed)",
            );
            None
        }
    }
}
