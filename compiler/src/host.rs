//! `host`: the items a kernel expands to, via quote.
//!
//! A kernel `fn name(..)` becomes `pub mod name` holding its checked signature (`SIGNATURE`). Generated
//! code names tessel only through `::tessel::__private`, so user crates need nothing else in scope.

use crate::syntax::ast::{Kernel, ParamTy};
use crate::typeck::{DimVal, Facts};
use proc_macro2::TokenStream;
use quote::{format_ident, quote, quote_spanned};

/// The module for a kernel that passed checking.
pub fn expand(kernel: &Kernel, facts: &Facts) -> TokenStream {
    let vis = &kernel.vis;
    let name = &kernel.name;
    let signature = signature(kernel, facts);
    quote_spanned! {name.span()=>
        #[allow(non_snake_case, dead_code)]
        #vis mod #name {
            /// The kernel's checked signature: parameters, runtime dimensions and resources.
            pub const SIGNATURE: ::tessel::__private::Signature = #signature;
        }
    }
}

fn signature(kernel: &Kernel, facts: &Facts) -> TokenStream {
    let name = kernel.name.to_string();
    let params = kernel.params.iter().map(|p| {
        let pname = p.name.to_string();
        let kind = match &p.ty {
            ParamTy::Gmem { dtype, mutable, .. } => {
                let dtype = dtype.value.name();
                let shape = gmem_shape(facts, kernel, &p.name);
                quote!(::tessel::__private::ParamKind::Gmem { dtype: #dtype, shape: &[#(#shape),*], mutable: #mutable })
            }
            ParamTy::Scalar(d) => {
                let dtype = d.value.name();
                quote!(::tessel::__private::ParamKind::Scalar { dtype: #dtype })
            }
        };
        quote_spanned!(p.name.span()=> ::tessel::__private::Param { name: #pname, kind: #kind })
    });
    let dims = &facts.runtime_dims;
    let warpgroups = kernel.attr.warpgroups.value;
    let [cx, cy, cz] = kernel.attr.cluster.value;
    let smem = facts.smem_bytes as u32;
    quote! {
        ::tessel::__private::Signature {
            name: #name,
            params: &[#(#params),*],
            runtime_dims: &[#(#dims),*],
            warpgroups: #warpgroups,
            cluster: [#cx, #cy, #cz],
            smem_bytes: #smem,
        }
    }
}

/// The dimensions of a global parameter, as `Dim` constructors.
fn gmem_shape(facts: &Facts, kernel: &Kernel, param: &syn::Ident) -> Vec<TokenStream> {
    let index = kernel.params.iter().position(|p| p.name == *param).unwrap_or(0);
    let ParamTy::Gmem { shape, .. } = &kernel.params[index].ty else { return Vec::new() };
    shape
        .iter()
        .map(|d| match d {
            crate::syntax::ast::Dim::Lit(v) => {
                let v = v.value;
                quote!(::tessel::__private::Dim::Static(#v))
            }
            crate::syntax::ast::Dim::Name(n) => match facts.consts.get(&n.to_string()) {
                Some(v) => quote!(::tessel::__private::Dim::Static(#v)),
                None => {
                    let n = n.to_string();
                    quote!(::tessel::__private::Dim::Runtime(#n))
                }
            },
        })
        .collect()
}

/// What the macro emits beside the errors of a rejected kernel: an empty module of the kernel's
/// name, so that paths to it do not add errors of their own.
pub fn fallback(kernel: Option<&Kernel>, item: &TokenStream) -> TokenStream {
    let name = match kernel {
        Some(k) => k.name.clone(),
        None => match syn::parse2::<syn::ItemFn>(item.clone()) {
            Ok(f) => f.sig.ident,
            Err(_) => return TokenStream::new(),
        },
    };
    let _ = format_ident!("{}", name);
    quote!(#[allow(non_snake_case, dead_code)] pub mod #name {})
}

#[allow(unused)]
fn _keep(_: DimVal) {}
