//! `interpret`: the kernel on the CPU, through tessel's interpreter.
//!
//! The interpreter reads the kernel from its source text (`SOURCE`, the attribute and the function
//! as the macro received them) and runs the same checked program the PTX came from, on host tensors.

use super::params::{HostKind, HostParam};
use super::Input;
use proc_macro2::TokenStream;
use quote::{quote, ToTokens};
use syn::parse::Parser;
use syn::punctuated::Punctuated;
use syn::visit_mut::{self, VisitMut};
use syn::Token;

/// `static SOURCE` and `pub fn interpret(<host tensors and scalars>) -> Result<()>`.
pub(crate) fn interpret(params: &[HostParam], input: &Input) -> TokenStream {
    let decls = params.iter().map(|p| p.declare(p.host_type()));
    let shapes = params.iter().map(|p| {
        let name = p.name;
        match p.kind {
            HostKind::Tensor { .. } => quote!(#name.shape()),
            HostKind::Scalar { .. } => quote!(#name),
        }
    });
    let args = params.iter().map(|p| {
        let name = p.name;
        match &p.kind {
            HostKind::Tensor { mutable: false, .. } => quote!(::tessel::__private::interp::Arg::Tensor(#name)),
            HostKind::Tensor { mutable: true, .. } => quote!(::tessel::__private::interp::Arg::TensorMut(#name)),
            HostKind::Scalar { scalar, .. } => scalar.interp_arg(name),
        }
    });
    let (attr, item) = (source_text(&input.attr, false), source_text(&input.item, true));
    quote! {
        /// The kernel's source, read by the interpreter.
        static SOURCE: ::tessel::__private::interp::KernelSource =
            ::tessel::__private::interp::KernelSource { attr: #attr, item: #item };

        /// Runs the kernel on the CPU: the same program as the PTX, on host tensors, one host
        /// thread per warpgroup (so barriers and producer/consumer code behave), with TMA copies
        /// synchronous. Checks the arguments first, exactly as `launch` does (`check_args`).
        #[allow(clippy::too_many_arguments)]
        pub fn interpret(#(#decls),*) -> ::tessel::Result<()> {
            self::check_args(#(#shapes),*)?;
            ::tessel::__private::interp::interpret(&self::SOURCE, &mut [#(#args),*])
        }
    }
}

/// The attribute's or the function's tokens as text the interpreter parses into the program the
/// macro parsed. An expression a `macro_rules!` substituted (`$act:expr`) arrives as a group
/// without delimiters, which keeps its precedence (`$act.cast::<f32>()` casts all of
/// `z * recip(..)`) but prints without them: such expressions are printed in parentheses. Other
/// undelimited groups (a `$doc:meta` in an attribute, a `$v:vis`) print as they are.
fn source_text(tokens: &TokenStream, item: bool) -> String {
    let regrouped = match item {
        true => syn::parse2::<syn::ItemFn>(tokens.clone()).map(|mut f| {
            Parenthesize.visit_item_fn_mut(&mut f);
            f.to_token_stream()
        }),
        false => Punctuated::<syn::Expr, Token![,]>::parse_terminated.parse2(tokens.clone()).map(|mut args| {
            args.iter_mut().for_each(|e| Parenthesize.visit_expr_mut(e));
            args.to_token_stream()
        }),
    };
    // What does not parse here does not compile either: the macro reports it.
    regrouped.unwrap_or_else(|_| tokens.clone()).to_string()
}

/// Rewrites undelimited expression groups as parenthesized ones, and a group of a literal or a
/// name as the literal or name itself (where the attribute wants a literal: `cluster = ($c,)`).
struct Parenthesize;

impl VisitMut for Parenthesize {
    fn visit_expr_mut(&mut self, e: &mut syn::Expr) {
        if let syn::Expr::Group(g) = e {
            *e = match &*g.expr {
                syn::Expr::Lit(_) | syn::Expr::Path(_) => (*g.expr).clone(),
                _ => syn::Expr::Paren(syn::ExprParen {
                    attrs: std::mem::take(&mut g.attrs),
                    paren_token: Default::default(),
                    expr: g.expr.clone(),
                }),
            };
        }
        visit_mut::visit_expr_mut(self, e);
    }
}
