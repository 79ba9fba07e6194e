//! The functions of a generic kernel whose instances have different signatures (`#[when(..)]` on a
//! parameter): each instance's `check_args`, `launch` and `interpret`, in an inherent impl of that
//! instance alone, so that `attention::<bf16, 64, 1>::launch(stream, q, k, v, o, lse, scale)` and
//! `attention::<bf16, 64, 0>::launch(stream, q, k, v, o, scale)` are both calls of the instance's
//! own signature. (Inherent impls of distinct instances of one struct do not overlap, so rustc
//! accepts a function of the same name in each.)

use super::generic::{arguments, signatures, Bind, HostSig, Shape, DOC_CHECK_ARGS, DOC_INTERPRET, DOC_LAUNCH};
use crate::generic::decl::{Instance, Param};
use proc_macro2::{Span, TokenStream, TokenTree};
use quote::{quote, quote_spanned};
use syn::Ident;

/// What the functions do: forward to the instance's module, or (in the fallback) fail.
pub(super) enum Body<'a> {
    Forward(Ident),
    Failed(&'a TokenStream),
}

/// The instance's own signature, where the instances' signatures differ; `None` where they are
/// shared, or the instance could not be read.
pub(super) fn sig<'s>(shape: &'s Shape, instance: &Instance) -> Option<&'s HostSig> {
    match shape {
        Shape::Shared(_) => None,
        Shape::PerInstance(sigs) => sigs.iter().find(|(values, _)| *values == instance.values).map(|(_, sig)| sig),
    }
}

/// `impl attention<bf16, 64, 1> { pub fn check_args(..); pub fn launch(..); pub fn interpret(..) }`,
/// at the instance in the attribute.
pub(super) fn methods(
    func: &syn::ItemFn,
    generics: &[Param],
    sig: &HostSig,
    instance: &Instance,
    body: Body,
) -> TokenStream {
    let name = &func.sig.ident;
    let bind = Bind::Instance(instance);
    let args = arguments(generics, bind);
    let [check_args, launch, interpret] = signatures(sig, bind).map(|s| named_at(s, instance.loc.start));
    let names: Vec<&Ident> = sig.params.iter().map(|p| &p.name).collect();
    let stream = sig.target();
    let [check_body, launch_body, interpret_body] = match body {
        Body::Forward(module) => [
            quote!(self::#module::check_args(#(#names),*)),
            quote!(self::#module::launch(#stream, #(#names),*)),
            quote!(self::#module::interpret(#(#names),*)),
        ],
        Body::Failed(failed) => [failed.clone(), failed.clone(), failed.clone()],
    };
    quote_spanned! {instance.loc.start=>
        #[allow(unused_variables, clippy::too_many_arguments)]
        impl self::#name<#(#args),*> {
            #[doc = #DOC_CHECK_ARGS]
            pub #check_args { #check_body }
            #[doc = #DOC_LAUNCH]
            pub #launch { #launch_body }
            #[doc = #DOC_INTERPRET]
            pub #interpret { #interpret_body }
        }
    }
}

/// The signature with the function's name at `span`: rustc's "defined here" (under an error at a
/// call) then points at the instance in `instances(..)`, not at the whole attribute.
fn named_at(signature: TokenStream, span: Span) -> TokenStream {
    signature
        .into_iter()
        .map(|tt| match tt {
            TokenTree::Ident(mut name) if name == "check_args" || name == "launch" || name == "interpret" => {
                name.set_span(span);
                TokenTree::Ident(name)
            }
            tt => tt,
        })
        .collect()
}
