//! A generic kernel's declaration: its generic parameters (`fn matmul<T, const BN: usize>`) and
//! the instances its attribute lists (`instances((bf16, 256), (f16, 128))`), read and checked
//! before any instance is compiled. Every problem goes to the `Ctxt`, at the tokens that are wrong.

use crate::codes::Code;
use crate::diag::{Ctxt, Loc};
use crate::types::DType;
use proc_macro2::{Delimiter, Group, Span, TokenStream, TokenTree};
use quote::ToTokens as _;
use syn::spanned::Spanned as _;
use syn::Ident;

/// What the attribute and the generics declare.
pub(crate) struct Decl {
    pub params: Vec<Param>,
    pub instances: Vec<Instance>,
    /// The attribute without its `instances(..)` argument: what each instance's front end reads.
    pub attr: TokenStream,
}

/// A generic parameter of the kernel.
pub(crate) struct Param {
    pub name: Ident,
    pub kind: Kind,
}

pub(crate) enum Kind {
    /// `T`: stands for a dtype.
    Dtype,
    /// `const BN: usize`: stands for a compile-time integer, at most `max`. `ty` is the Rust type
    /// the generated struct declares it with: `usize` where the kernel's was not an integer type,
    /// which is reported (and `max` is then 0, for an instance's value is not checked against a
    /// type that is wrong: the instance is left out).
    Int { ty: Ident, max: u64 },
}

/// One instance of `instances(..)`: a value per generic parameter, in order.
pub(crate) struct Instance {
    pub values: Vec<Value>,
    /// `matmul::<bf16, 256>`: how messages and the documentation name it.
    pub name: String,
    /// The instance in the attribute.
    pub loc: Loc,
}

#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub(crate) enum Value {
    Dtype(DType),
    Int(u64),
}

impl Value {
    pub(crate) fn text(self) -> String {
        match self {
            Value::Dtype(d) => d.name().to_string(),
            Value::Int(v) => v.to_string(),
        }
    }
}

/// The dtypes a type parameter may stand for: those with a host element type of their own, since
/// calls name the instance by it (`matmul::<bf16, 256>`). tf32 is stored as f32, so
/// `matmul::<f32, ..>` could not tell the two apart; i4 and bool have no host type.
pub(crate) const PARAM_DTYPES: &str = "bf16, f16, f32, f8e4m3, f8e5m2, i8, u8, i16, u16, i32, u32, i64 or u64";

/// Whether `func` is a generic kernel or its attribute lists instances: either way, `generic`
/// compiles it.
pub(crate) fn applies(attr: &TokenStream, func: &syn::ItemFn) -> bool {
    !func.sig.generics.params.is_empty()
        || func.sig.generics.where_clause.is_some()
        || arguments(attr).iter().any(is_instances)
}

/// Reads the generic parameters of `func` and the instances of `attr`.
pub(crate) fn read(ctx: &Ctxt, attr: TokenStream, func: &syn::ItemFn) -> Decl {
    let params = params(ctx, &func.sig.generics);
    let (attr, list) = split_instances(ctx, attr);
    let name = &func.sig.ident;
    let instances = match (&list, params.is_empty()) {
        // Malformed: reported.
        (Some(None), _) => Vec::new(),
        (Some(Some(list)), false) => instances(ctx, name, &params, list),
        (Some(Some(list)), true) => {
            ctx.type_error(
                list.0.span(),
                Code::Instances,
                format!(
                    "`instances(..)` lists the instances of a generic kernel, and `{name}` has no generic parameters"
                ),
                format!("declare them, `fn {name}<T, const BN: usize>(..)`, or remove `instances(..)`"),
            );
            Vec::new()
        }
        (None, false) => {
            let g = &func.sig.generics;
            let end = g.gt_token.map_or_else(|| g.span(), |t| t.span);
            ctx.type_error(
                Loc::new(g.span(), end),
                Code::Instances,
                format!("the generic kernel `{name}` lists no instances"),
                format!(
                    "every instance is compiled when the crate builds: list them in the attribute, \
                     `#[kernel(.., instances({}))]`",
                    example(&params)
                ),
            );
            Vec::new()
        }
        (None, true) => Vec::new(),
    };
    Decl { params, instances, attr }
}

/// An instance for the messages that ask for one: `(bf16, 64)`, or `bf16` for one parameter.
fn example(params: &[Param]) -> String {
    let values: Vec<&str> = params
        .iter()
        .map(|p| match p.kind {
            Kind::Dtype => "bf16",
            Kind::Int { .. } => "64",
        })
        .collect();
    match values.as_slice() {
        [one] => one.to_string(),
        _ => format!("({})", values.join(", ")),
    }
}

// ---- the generic parameters -----------------------------------------------------------------

/// The parameters of `<..>`. A parameter the kernel cannot have is reported; a type or const one
/// is kept all the same (as `usize` for a const of another type), so that its uses in the kernel
/// report nothing more.
pub(crate) fn params(ctx: &Ctxt, generics: &syn::Generics) -> Vec<Param> {
    if let Some(w) = &generics.where_clause {
        ctx.unsupported(
            w.span(),
            Code::GenericParam,
            "`where` clauses on a kernel (its type parameters stand for dtypes)",
        );
    }
    let mut out: Vec<Param> = Vec::new();
    for p in &generics.params {
        let param = match p {
            syn::GenericParam::Lifetime(l) => {
                ctx.unsupported(l.span(), Code::GenericParam, "lifetime parameters on a kernel");
                None
            }
            syn::GenericParam::Type(t) => type_param(ctx, t),
            syn::GenericParam::Const(c) => const_param(ctx, c),
        };
        let Some(param) = param else { continue };
        if DType::from_name(&param.name.to_string()).is_some() {
            ctx.type_error(
                param.name.span(),
                Code::GenericParam,
                format!("a generic parameter cannot be called `{}`: it is a dtype's name", param.name),
                "rename the parameter, e.g. `T`",
            );
            continue;
        }
        if out.iter().any(|q| q.name == param.name) {
            ctx.type_error(
                param.name.span(),
                Code::GenericParam,
                format!("the generic parameter `{}` is declared twice", param.name),
                "rename one of them",
            );
            continue;
        }
        out.push(param);
    }
    out
}

fn type_param(ctx: &Ctxt, t: &syn::TypeParam) -> Option<Param> {
    if !t.bounds.is_empty() {
        ctx.unsupported(
            t.bounds.span(),
            Code::GenericParam,
            format!("bounds on a kernel's type parameter (`{}` stands for a dtype)", t.ident),
        );
    }
    if let Some(default) = &t.default {
        ctx.unsupported(
            default.span(),
            Code::GenericParam,
            "defaults for a kernel's generic parameters (list every instance)",
        );
    }
    Some(Param { name: t.ident.clone(), kind: Kind::Dtype })
}

fn const_param(ctx: &Ctxt, c: &syn::ConstParam) -> Option<Param> {
    if let Some(default) = &c.default {
        ctx.unsupported(
            default.span(),
            Code::GenericParam,
            "defaults for a kernel's generic parameters (list every instance)",
        );
    }
    let ty = match crate::syntax::peel_ty(&c.ty) {
        syn::Type::Path(p) if p.qself.is_none() => p.path.get_ident().and_then(|i| int_max(i).map(|m| (i, m))),
        _ => None,
    };
    let kind = match ty {
        Some((ty, max)) => Kind::Int { ty: ty.clone(), max },
        None => {
            ctx.type_error(
                c.ty.span(),
                Code::GenericParam,
                format!("the const parameter `{}` is not an integer", c.ident),
                format!("a kernel's const parameter is a compile-time integer: `const {}: usize`", c.ident),
            );
            Kind::Int { ty: Ident::new("usize", c.ty.span()), max: 0 }
        }
    };
    Some(Param { name: c.ident.clone(), kind })
}

/// The largest value a const parameter of integer type `ty` takes: the type's, and at most
/// `i32::MAX`, as every compile-time integer of a kernel (`consts(..)`).
fn int_max(ty: &Ident) -> Option<u64> {
    let max: u64 = match ty.to_string().as_str() {
        "u8" => u8::MAX.into(),
        "i8" => i8::MAX as u64,
        "u16" => u16::MAX.into(),
        "i16" => i16::MAX as u64,
        "u32" | "i32" | "u64" | "i64" | "usize" | "isize" => i32::MAX as u64,
        _ => return None,
    };
    Some(max)
}

// ---- instances(..) ---------------------------------------------------------------------------

/// The attribute's arguments: its tokens between top-level commas, each with the comma after it
/// (if any).
fn arguments(attr: &TokenStream) -> Vec<(Vec<TokenTree>, Option<TokenTree>)> {
    let mut out = Vec::new();
    let mut chunk = Vec::new();
    for tt in attr.clone() {
        match tt {
            TokenTree::Punct(p) if p.as_char() == ',' => out.push((std::mem::take(&mut chunk), Some(p.into()))),
            tt => chunk.push(tt),
        }
    }
    if !chunk.is_empty() {
        out.push((chunk, None));
    }
    out
}

/// Whether an argument is `instances(..)`, also as a fragment a `macro_rules!` passed (in an
/// invisible group).
fn is_instances(arg: &(Vec<TokenTree>, Option<TokenTree>)) -> bool {
    matches!(unwrap_invisible(&arg.0).first(), Some(TokenTree::Ident(i)) if i == "instances")
}

/// The attribute without `instances(..)` (and the comma after it), and that argument's name and
/// list (`Some(None)` when it is malformed, which is reported). Every other token keeps its place,
/// so that the front end reports the rest of the attribute exactly as for a kernel without
/// instances.
#[allow(clippy::type_complexity)]
fn split_instances(ctx: &Ctxt, attr: TokenStream) -> (TokenStream, Option<Option<(Ident, Group)>>) {
    let mut rest = TokenStream::new();
    let mut found: Option<Option<(Ident, Group)>> = None;
    for arg in arguments(&attr) {
        if !is_instances(&arg) {
            rest.extend(arg.0);
            rest.extend(arg.1);
            continue;
        }
        let tokens = unwrap_invisible(&arg.0);
        let list = match tokens.as_slice() {
            [TokenTree::Ident(name), TokenTree::Group(g)] if g.delimiter() == Delimiter::Parenthesis => {
                Some((name.clone(), g.clone()))
            }
            _ => {
                ctx.type_error(
                    loc_of(&tokens, attr_span(&tokens)),
                    Code::Instances,
                    "expected `instances((..), ..)`",
                    "list the instances as tuples of values for the generic parameters: \
                     `instances((bf16, 256), (f16, 128))`",
                );
                None
            }
        };
        match (&found, list) {
            (Some(_), Some((name, _))) => ctx.type_error(
                name.span(),
                Code::Instances,
                "`instances(..)` is given twice",
                "list every instance in one `instances(..)`",
            ),
            (None, list) => found = Some(list),
            (Some(_), None) => {}
        }
    }
    (rest, found)
}

/// The instances of `instances(..)`, each checked against the parameters; one that is wrong is
/// reported and left out.
fn instances(ctx: &Ctxt, kernel: &Ident, params: &[Param], (name, list): &(Ident, Group)) -> Vec<Instance> {
    let entries = split_commas(ctx, list.stream());
    if entries.is_empty() {
        ctx.type_error(
            Loc::new(name.span(), list.span()),
            Code::Instances,
            "`instances(..)` lists no instance",
            format!("list at least one: `instances({})`", example(params)),
        );
    }
    let mut out: Vec<Instance> = Vec::new();
    for entry in entries {
        let Some(instance) = instance(ctx, kernel, params, &entry, list.span()) else { continue };
        if out.iter().any(|i| i.values == instance.values) {
            ctx.type_error(
                instance.loc,
                Code::Instances,
                format!("the instance `{}` is listed twice", instance.name),
                "list each instance once",
            );
            continue;
        }
        out.push(instance);
    }
    out
}

/// One entry of the list: a parenthesized tuple, or a lone value for a kernel of one parameter.
fn instance(ctx: &Ctxt, kernel: &Ident, params: &[Param], entry: &[TokenTree], list: Span) -> Option<Instance> {
    let entry = unwrap_invisible(entry);
    let loc = loc_of(&entry, list);
    let values: Vec<Vec<TokenTree>> = match entry.as_slice() {
        [TokenTree::Group(g)] if g.delimiter() == Delimiter::Parenthesis => split_commas(ctx, g.stream()),
        _ if params.len() == 1 => vec![entry.clone()],
        _ => {
            ctx.type_error(
                loc,
                Code::Instances,
                format!("expected an instance of `{kernel}`: a tuple of values for {}", names(params)),
                format!("write `{}`", example(params)),
            );
            return None;
        }
    };
    if values.len() != params.len() {
        let given = match values.len() {
            1 => "1 value".to_string(),
            n => format!("{n} values"),
        };
        ctx.type_error(
            loc,
            Code::Instances,
            format!(
                "`{kernel}` has {} generic parameters, {}, and this instance gives {given}",
                params.len(),
                names(params)
            ),
            format!("give one value per parameter, in order: `{}`", example(params)),
        );
        return None;
    }
    let values: Vec<Option<Value>> = params.iter().zip(&values).map(|(p, v)| value(ctx, p, v, list)).collect();
    let values: Vec<Value> = values.into_iter().collect::<Option<_>>()?;
    let text: Vec<String> = values.iter().map(|v| v.text()).collect();
    Some(Instance { name: format!("{kernel}::<{}>", text.join(", ")), values, loc })
}

/// The value of one parameter in an instance.
fn value(ctx: &Ctxt, param: &Param, tokens: &[TokenTree], list: Span) -> Option<Value> {
    let tokens = unwrap_invisible(tokens);
    let (name, at) = (&param.name, loc_of(&tokens, list));
    match (&param.kind, tokens.as_slice()) {
        // A const parameter of a wrong type is reported; its values are not checked against it.
        (Kind::Int { max: 0, .. }, _) => None,
        (Kind::Dtype, [TokenTree::Ident(i)]) => {
            let dtype = DType::from_name(&i.to_string());
            match dtype {
                Some(d) if crate::host::element_type(d, i.span()).is_some() && d != DType::Tf32 => {
                    Some(Value::Dtype(d))
                }
                Some(d) => {
                    let why = if d == DType::Tf32 { "tf32 is stored as f32" } else { "no host tensor holds it" };
                    ctx.type_error(
                        i.span(),
                        Code::Instances,
                        format!("`{name}` cannot be {d}: calls name the instance by its host element type, and {why}"),
                        format!("give `{name}` one of {PARAM_DTYPES}"),
                    );
                    None
                }
                None => {
                    dtype_expected(ctx, name, at);
                    None
                }
            }
        }
        (Kind::Dtype, _) => {
            dtype_expected(ctx, name, at);
            None
        }
        (Kind::Int { ty, max }, [TokenTree::Literal(l)]) => {
            let lit = syn::parse2::<syn::LitInt>(l.to_token_stream()).ok();
            let value = lit
                .as_ref()
                .filter(|l| l.suffix().is_empty() || *ty == l.suffix())
                .and_then(|l| l.base10_parse::<u64>().ok());
            match value {
                Some(v) if v <= *max => Some(Value::Int(v)),
                Some(v) => {
                    ctx.type_error(
                        l.span(),
                        Code::Instances,
                        format!("`{name}` cannot be {v}: a `{ty}` const parameter of a kernel is at most {max}"),
                        format!("give `{name}` a value from 0 to {max}"),
                    );
                    None
                }
                None => {
                    int_expected(ctx, name, ty, at);
                    None
                }
            }
        }
        (Kind::Int { ty, .. }, _) => {
            int_expected(ctx, name, ty, at);
            None
        }
    }
}

fn dtype_expected(ctx: &Ctxt, name: &Ident, at: Loc) {
    ctx.type_error(
        at,
        Code::Instances,
        format!("expected a dtype for the type parameter `{name}`"),
        format!("give `{name}` one of {PARAM_DTYPES}"),
    );
}

fn int_expected(ctx: &Ctxt, name: &Ident, ty: &Ident, at: Loc) {
    ctx.type_error(
        at,
        Code::Instances,
        format!("expected an integer literal for the const parameter `{name}: {ty}`"),
        format!("give `{name}` a non-negative integer, e.g. `64`"),
    );
}

/// `` `T` and `BN` ``: the parameters, for messages.
fn names(params: &[Param]) -> String {
    let names: Vec<String> = params.iter().map(|p| format!("`{}`", p.name)).collect();
    match names.as_slice() {
        [] => "no parameters".into(),
        [one] => one.clone(),
        [init @ .., last] => format!("{} and {last}", init.join(", ")),
    }
}

/// The tokens between top-level commas; an empty entry other than after a trailing comma is
/// reported at its comma.
fn split_commas(ctx: &Ctxt, tokens: TokenStream) -> Vec<Vec<TokenTree>> {
    let mut out = Vec::new();
    for (entry, comma) in arguments(&tokens) {
        if entry.is_empty() {
            if let Some(comma) = comma {
                ctx.type_error(
                    comma.span(),
                    Code::Instances,
                    "expected an instance before this comma",
                    "remove the extra comma",
                );
            }
            continue;
        }
        out.push(entry);
    }
    out
}

/// A lone invisible group (what a `macro_rules!` passes for a fragment such as `$t:ident`) is its
/// contents, unless it is empty.
fn unwrap_invisible(tokens: &[TokenTree]) -> Vec<TokenTree> {
    match tokens {
        [TokenTree::Group(g)] if g.delimiter() == Delimiter::None && !g.stream().is_empty() => {
            unwrap_invisible(&g.stream().into_iter().collect::<Vec<_>>())
        }
        _ => tokens.to_vec(),
    }
}

/// The span of an argument's first token (it has one: it starts with `instances`).
fn attr_span(tokens: &[TokenTree]) -> Span {
    tokens.first().map_or_else(Span::call_site, TokenTree::span)
}

/// From the first to the last token; `tokens` is never empty (`split_commas` leaves empty entries
/// out, `unwrap_invisible` keeps an empty group), but a missing token falls back to `list`.
fn loc_of(tokens: &[TokenTree], list: Span) -> Loc {
    match (tokens.first(), tokens.last()) {
        (Some(first), Some(last)) => Loc::new(first.span(), last.span()),
        _ => Loc::from(list),
    }
}
