//! `syntax`: the `#[kernel]` attribute and function, read into the `ast` with spans.

pub mod ast;
mod calls;
mod expr;
pub mod function;
mod generic_call;
mod hygiene;
pub mod inline;
mod known;
mod peers;
mod pipeline;
mod types;
mod when;

use crate::codes::Code;
use crate::diag::{Ctxt, Loc};
use ast::{ConstDef, Kernel, KernelAttr, Param, Spanned};
use proc_macro2::{Punct, Spacing, Span, TokenStream, TokenTree};
use syn::parse::{ParseStream, Parser};
use syn::spanned::Spanned as _;

/// The expression inside the invisible groups (`Delimiter::None`) that a `macro_rules!` wraps
/// around the fragments it substitutes (`$e:expr`, `$n:literal`, ..): the syntax stage looks at the
/// kind of what the user wrote, and its spans are those of the user's tokens. Only where the kind
/// is inspected: lowering keeps the group's structure, which is also its precedence (`$e * 2` with
/// `a + b` is `(a + b) * 2`).
pub(crate) fn peel(e: &syn::Expr) -> &syn::Expr {
    match e {
        syn::Expr::Group(g) => peel(&g.expr),
        other => other,
    }
}

/// The type inside the invisible groups a `macro_rules!` wraps around `$t:ty` (and `$p:path`)
/// fragments.
pub(crate) fn peel_ty(ty: &syn::Type) -> &syn::Type {
    match ty {
        syn::Type::Group(g) => peel_ty(&g.elem),
        other => other,
    }
}

/// The item `#[kernel]` is on, read once: every later stage takes it from here.
pub struct Item {
    pub func: syn::ItemFn,
    /// The tokens as the macro received them, where a `macro_rules!`'s fragments are still the
    /// groups it substituted (`Ctxt::note_fragments`).
    pub tokens: TokenStream,
}

/// Reads the item `#[kernel]` is on.
pub fn parse_fn(tokens: TokenStream) -> Result<Item, syn::Error> {
    match syn::parse2(tokens.clone()) {
        Ok(func) => Ok(Item { func, tokens }),
        Err(e) => {
            let ctx = Ctxt::new();
            ctx.unsupported(e.span(), Code::UnsupportedSignature, format!("{e} (`#[kernel]` goes on a plain `fn`)"));
            Err(ctx.finish().err().unwrap_or(e))
        }
    }
}

/// Reads a kernel. Every problem goes to `ctx`.
pub fn parse(ctx: &Ctxt, attr: TokenStream, item: &Item) -> Kernel {
    ctx.note_fragments(&attr, &item.tokens);
    let func = &item.func;
    check_signature(ctx, &func.sig);
    let (mut attr, ragged) = parse_attr(ctx, attr, func.sig.ident.span());
    ctx.set_devices(attr.devices.as_ref().map(|d| d.value));
    for c in &attr.consts {
        expr::know_const(ctx, c);
    }
    // Conditions may name the attribute's consts: decided once those are known.
    attr.ragged =
        ragged.into_iter().filter(|(_, attrs)| when::kept(ctx, attrs, when::On::Ragged)).map(|(d, _)| d).collect();
    let mut left_out = Vec::new();
    let mut params = Vec::new();
    for arg in &func.sig.inputs {
        match parse_param(ctx, arg) {
            Some(Parsed::Kept(p)) => params.push(p),
            Some(Parsed::LeftOut(name)) => left_out.push(name),
            None => {}
        }
    }
    ctx.leave_out(left_out.iter().map(|n| n.to_string()));
    let body = expr::lower_block(ctx, &func.block);
    Kernel { vis: func.vis.clone(), name: func.sig.ident.clone(), attr, params, left_out, body }
}

/// Kernels are plain functions: no generics, async, return values and so on.
fn check_signature(ctx: &Ctxt, sig: &syn::Signature) {
    let reject = |present: bool, span: Span, what: &str| {
        if present {
            ctx.unsupported(span, Code::UnsupportedSignature, what.to_string());
        }
    };
    reject(sig.constness.is_some(), sig.span(), "`const fn` kernels");
    reject(sig.asyncness.is_some(), sig.span(), "`async fn` kernels");
    reject(sig.unsafety.is_some(), sig.span(), "`unsafe fn` kernels");
    if !sig.generics.params.is_empty() {
        let g = &sig.generics;
        let end = g.gt_token.map_or_else(|| g.span(), |t| t.span);
        ctx.unsupported(
            Loc::new(g.span(), end),
            Code::UnsupportedSignature,
            "generic kernels (use `consts(..)` in #[kernel])",
        );
    }
    reject(sig.variadic.is_some(), sig.span(), "variadic kernels");
    if let syn::ReturnType::Type(_, ty) = &sig.output {
        ctx.unsupported(
            ty.span(),
            Code::UnsupportedSignature,
            "kernel return values (write results through a `GmemMut` parameter)",
        );
    }
}

/// A parameter as read: one of the kernel's, or one its `#[when(..)]` leaves out.
enum Parsed {
    Kept(Param),
    LeftOut(syn::Ident),
}

fn parse_param(ctx: &Ctxt, arg: &syn::FnArg) -> Option<Parsed> {
    let syn::FnArg::Typed(pt) = arg else {
        ctx.unsupported(arg.span(), Code::UnsupportedSignature, "`self` parameters");
        return None;
    };
    let syn::Pat::Ident(pi) = &*pt.pat else {
        ctx.unsupported(pt.pat.span(), Code::UnsupportedSignature, "this parameter pattern (name the parameter)");
        return None;
    };
    let (peers, attrs) = peers::split(ctx, &pt.attrs);
    if !when::kept(ctx, &attrs, when::On::Param) {
        return Some(Parsed::LeftOut(pi.ident.clone()));
    }
    if GENERATED_ITEMS.iter().any(|item| pi.ident == item) {
        // In the generated `launch(.., PTX: ..)` the name would be a pattern for the module's const.
        // (Reported; the parameter stays, so that its uses report nothing more.)
        ctx.type_error(
            pi.ident.span(),
            Code::NameClash,
            format!("a kernel parameter cannot be called `{}`: the kernel's module defines it", pi.ident),
            "rename the parameter",
        );
    }
    let Some(ty) = types::param_ty(ctx, &pt.ty) else {
        ctx.reject_declaration(&pi.ident);
        return None;
    };
    Some(Parsed::Kept(Param { name: pi.ident.clone(), ty, peers }))
}

/// The constants of the module a kernel expands to (`host`).
pub(crate) const GENERATED_ITEMS: [&str; 3] = ["PTX", "ENTRY", "SIGNATURE"];

/// A dimension of `ragged(..)` with its attributes (`#[when(condition)]`), decided once the
/// attribute's consts are known.
type RaggedDim = (syn::Ident, Vec<syn::Attribute>);

/// The attribute, and the dimensions `ragged(..)` names, each with its attributes.
fn parse_attr(ctx: &Ctxt, attr: TokenStream, name_span: Span) -> (KernelAttr, Vec<RaggedDim>) {
    let mut out = KernelAttr {
        grid: Vec::new(),
        grid_span: name_span,
        warpgroups: Spanned::new(1, name_span),
        warpgroup_axis: None,
        cluster: Spanned::new([1, 1, 1], name_span),
        max_registers: None,
        consts: Vec::new(),
        ragged: Vec::new(),
        devices: None,
    };
    let mut ragged = Vec::new();
    let (args, all_read) = attr_args(ctx, attr);
    let mut saw_grid = !all_read;
    for arg in &args {
        match peel(arg) {
            syn::Expr::Assign(a) => saw_grid |= attr_assign(ctx, &mut out, a),
            syn::Expr::Call(c) if calls::is_ident(&c.func, "consts") => {
                out.consts.extend(c.args.iter().filter_map(|e| const_def(ctx, e)));
            }
            syn::Expr::Call(c) if calls::is_ident(&c.func, "ragged") => {
                ragged.extend(c.args.iter().filter_map(|e| ragged_dim(ctx, e)));
            }
            other => attr_error(ctx, other.span()),
        }
    }
    if !saw_grid {
        ctx.type_error(
            name_span,
            Code::KernelAttribute,
            "#[kernel] needs a grid: `#[kernel(grid = (M / 64, N / 64))]`",
            "name how many programs to launch along each axis",
        );
    }
    (out, ragged)
}

/// The attribute's arguments, read one at a time so that a truncated one (`grid =`) is reported at
/// its own tokens: syn reports the end of its input at the call site, which is no place to point.
/// Also returns whether every argument could be read.
fn attr_args(ctx: &Ctxt, attr: TokenStream) -> (Vec<syn::Expr>, bool) {
    let mut args = Vec::new();
    let mut all_read = true;
    let mut chunk: Vec<TokenTree> = Vec::new();
    for tt in attr {
        match tt {
            TokenTree::Punct(p) if p.as_char() == ',' => {
                all_read &= attr_arg(ctx, &chunk, p.span(), &mut args);
                chunk.clear();
            }
            tt => chunk.push(tt),
        }
    }
    if let Some(last) = chunk.last() {
        all_read &= attr_arg(ctx, &chunk, last.span(), &mut args);
    }
    (args, all_read)
}

/// One argument (the tokens between two commas); `comma` is where an empty one is reported.
///
/// The argument is parsed with a `;` after it that carries the span of its last token: syn then
/// never reaches the end of its input, which it would report at the call site.
fn attr_arg(ctx: &Ctxt, chunk: &[TokenTree], comma: Span, out: &mut Vec<syn::Expr>) -> bool {
    let Some(last) = chunk.last() else {
        ctx.unsupported(comma, Code::KernelAttribute, "an empty #[kernel] argument");
        return false;
    };
    let mut end = Punct::new(';', Spacing::Alone);
    end.set_span(last.span());
    let tokens: TokenStream = chunk.iter().cloned().chain([TokenTree::Punct(end)]).collect();
    let argument = |input: ParseStream| {
        let e: syn::Expr = input.parse()?;
        if !input.peek(syn::Token![;]) {
            return Err(input.error("expected `,` or the end of the attribute"));
        }
        input.parse::<syn::Token![;]>()?;
        Ok(e)
    };
    match argument.parse2(tokens) {
        Ok(e) => {
            out.push(e);
            true
        }
        Err(e) => {
            ctx.unsupported(e.span(), Code::KernelAttribute, format!("this #[kernel] argument: {e}"));
            false
        }
    }
}

fn attr_error(ctx: &Ctxt, span: Span) {
    ctx.unsupported(span, Code::KernelAttribute, "this #[kernel] argument; the attribute takes grid, warpgroups, warpgroup_axis, cluster, max_registers, devices, consts(..) and ragged(..)");
}

/// One `key = value` of the attribute; returns whether it was the grid.
fn attr_assign(ctx: &Ctxt, out: &mut KernelAttr, a: &syn::ExprAssign) -> bool {
    let key = match peel(&a.left) {
        syn::Expr::Path(p) => p.path.get_ident().map(|i| i.to_string()).unwrap_or_default(),
        _ => String::new(),
    };
    let value = peel(&a.right);
    match key.as_str() {
        "grid" => {
            out.grid_span = value.span();
            out.grid = match value {
                syn::Expr::Tuple(t) => t.elems.iter().map(|e| expr::lower_expr(ctx, e)).collect(),
                other => vec![expr::lower_expr(ctx, other)],
            };
            if out.grid.is_empty() || out.grid.len() > 3 {
                ctx.type_error(
                    value.span(),
                    Code::KernelAttribute,
                    "a grid has one to three dimensions",
                    "write `grid = (x, y)`",
                );
            }
            return true;
        }
        "warpgroups" => {
            if let Some(n) = attr_u32(ctx, value) {
                out.warpgroups = n;
            }
        }
        "warpgroup_axis" => match value {
            syn::Expr::Path(p) if p.path.get_ident().is_some() => out.warpgroup_axis = p.path.get_ident().cloned(),
            other => ctx.type_error(
                other.span(),
                Code::KernelAttribute,
                "expected an axis name: `warpgroup_axis = wg`",
                "name the axis",
            ),
        },
        "cluster" => {
            let dims: Vec<Spanned<u32>> = match value {
                syn::Expr::Tuple(t) => t.elems.iter().filter_map(|e| attr_u32(ctx, e)).collect(),
                other => attr_u32(ctx, other).into_iter().collect(),
            };
            if dims.is_empty() || dims.len() > 3 {
                ctx.type_error(
                    value.span(),
                    Code::KernelAttribute,
                    "a cluster has one to three dimensions",
                    "write `cluster = (2, 1)`",
                );
            } else {
                let mut c = [1u32; 3];
                for (i, d) in dims.iter().enumerate() {
                    c[i] = d.value;
                }
                out.cluster = Spanned::new(c, value.span());
            }
        }
        "max_registers" => out.max_registers = attr_u32(ctx, value),
        "devices" => out.devices = attr_u32(ctx, value),
        _ => attr_error(ctx, a.left.span()),
    }
    false
}

fn attr_u32(ctx: &Ctxt, e: &syn::Expr) -> Option<Spanned<u32>> {
    expect_int_literal(ctx, e, e.span(), "attribute values are known when the kernel is compiled")
}

/// [`int_literal`], or a type error at `at` saying why it must be one.
pub(crate) fn expect_int_literal(ctx: &Ctxt, e: &syn::Expr, at: impl Into<Loc>, help: &str) -> Option<Spanned<u32>> {
    let v = int_literal(e);
    if v.is_none() {
        ctx.type_error(at, Code::KernelAttribute, "expected an integer literal", help);
    }
    v
}

/// A `u32` written as a literal, also one that a `macro_rules!` passed on (it arrives in an
/// invisible group).
pub(crate) fn int_literal(e: &syn::Expr) -> Option<Spanned<u32>> {
    match peel(e) {
        syn::Expr::Lit(syn::ExprLit { lit: syn::Lit::Int(i), .. }) => {
            i.base10_parse::<u32>().ok().map(|v| Spanned::new(v, i.span()))
        }
        _ => None,
    }
}

/// One name in `ragged(M, N)`, with its attributes (`ragged(M, #[when(RAGGED_N == 1)] N)`);
/// typeck checks that it is a runtime dimension.
fn ragged_dim(ctx: &Ctxt, e: &syn::Expr) -> Option<RaggedDim> {
    match peel(e) {
        syn::Expr::Path(p) if p.qself.is_none() && p.path.get_ident().is_some() => {
            p.path.get_ident().map(|d| (d.clone(), p.attrs.clone()))
        }
        other => {
            let help = "write `ragged(M, N)` with dimensions of the signature";
            ctx.type_error(expr::loc_of(other), Code::KernelAttribute, "expected a dimension name", help);
            None
        }
    }
}

fn const_def(ctx: &Ctxt, e: &syn::Expr) -> Option<ConstDef> {
    let e = peel(e);
    if let syn::Expr::Assign(a) = e {
        if let syn::Expr::Path(p) = peel(&a.left) {
            if let Some(name) = p.path.get_ident() {
                return Some(ConstDef { name: name.clone(), value: expr::lower_expr(ctx, &a.right) });
            }
        }
    }
    ctx.type_error(e.span(), Code::KernelAttribute, "expected `NAME = value`", "write `consts(BK = 64, STAGES = 4)`");
    None
}
