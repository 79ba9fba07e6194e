//! An instance of a generic kernel as a plain kernel: the function and the attribute with every
//! use of a generic parameter replaced by the instance's value (`T` by `bf16`, `BN` by `256`).
//!
//! The replacement is a token: the dtype's name or an integer literal, carrying the span of the
//! use it replaces. So the instance is read and checked by the same front end as any kernel, the
//! parameter may appear wherever a dtype or a compile-time integer may (types, turbofish, shapes,
//! the grid, consts, expressions), and an error points at the use of `T` or `BN` in the kernel,
//! which is where the user reads the code; the message names the instance (`generic`'s report).

use super::decl::{Param, Value};
use crate::syntax::Item;
use proc_macro2::{Group, Ident, Literal, Spacing, TokenStream, TokenTree};
use quote::ToTokens as _;

/// `func` without its generics and with the instance's values for the parameters, as the item the
/// front end reads (its tokens keep a `macro_rules!`'s fragment groups); `Err` when the result is no
/// longer a function (a parameter used as a pattern, `let BN = ..`, becomes a literal pattern, which
/// still parses; this is for what does not).
pub(crate) fn function(func: &syn::ItemFn, params: &[Param], values: &[Value]) -> Result<Item, syn::Error> {
    let mut plain = func.clone();
    plain.sig.generics = syn::Generics::default();
    let tokens = tokens(plain.into_token_stream(), params, values);
    Ok(Item { func: syn::parse2(tokens.clone())?, tokens })
}

/// `tokens` with each use of a parameter replaced by its value in `values`.
pub(crate) fn tokens(tokens: TokenStream, params: &[Param], values: &[Value]) -> TokenStream {
    let mut out = Vec::new();
    for tt in tokens {
        let tt = match tt {
            TokenTree::Group(g) => {
                let mut inner = Group::new(g.delimiter(), self::tokens(g.stream(), params, values));
                inner.set_span(g.span());
                TokenTree::Group(inner)
            }
            TokenTree::Ident(ident) if !follows_path_or_field(&out) => {
                match params.iter().position(|p| p.name == ident) {
                    Some(i) => values.get(i).map_or(TokenTree::Ident(ident.clone()), |v| replacement(*v, &ident)),
                    None => TokenTree::Ident(ident),
                }
            }
            tt => tt,
        };
        out.push(tt);
    }
    out.into_iter().collect()
}

/// The value's token, at the span of the use it replaces.
fn replacement(value: Value, at: &Ident) -> TokenTree {
    match value {
        Value::Dtype(d) => TokenTree::Ident(Ident::new(d.name(), at.span())),
        Value::Int(v) => {
            let mut lit = Literal::u64_unsuffixed(v);
            lit.set_span(at.span());
            TokenTree::Literal(lit)
        }
    }
}

/// Whether the next identifier is a path segment after `::` or a field or method after a single
/// `.`: such a name is not the parameter (`x.BN` is a field, `0..BN` is the parameter).
fn follows_path_or_field(before: &[TokenTree]) -> bool {
    let punct = |tt: Option<&TokenTree>, c: char| matches!(tt, Some(TokenTree::Punct(p)) if p.as_char() == c);
    let n = before.len();
    let (last, second) = (before.last(), n.checked_sub(2).and_then(|i| before.get(i)));
    let path = punct(last, ':')
        && matches!(second, Some(TokenTree::Punct(p)) if p.as_char() == ':' && p.spacing() == Spacing::Joint);
    let field = punct(last, '.') && !punct(second, '.');
    path || field
}
