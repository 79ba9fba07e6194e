//! `SIGNATURE`: the kernel's checked signature as data (`tessel::__private::Signature`), which the
//! launch checks read the expected shapes from and tests can inspect.

use crate::syntax::ast::{Dim, Kernel, ParamTy};
use crate::typeck::Facts;
use proc_macro2::TokenStream;
use quote::{quote, quote_spanned};

/// The `Signature` constructor of a checked kernel.
pub(crate) fn signature(kernel: &Kernel, facts: &Facts) -> TokenStream {
    let name = kernel.name.to_string();
    let params = kernel.params.iter().map(|p| {
        let pname = p.name.to_string();
        let kind = match &p.ty {
            ParamTy::Gmem { dtype, mutable, shape, .. } => {
                let dtype = dtype.value.name();
                let shape = shape.iter().map(|d| dim(facts, d));
                quote! {
                    ::tessel::__private::ParamKind::Gmem { dtype: #dtype, shape: &[#(#shape),*], mutable: #mutable }
                }
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
    let smem = u32::try_from(facts.smem_bytes).unwrap_or(u32::MAX);
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

/// One dimension of a global parameter as a `Dim` constructor.
fn dim(facts: &Facts, d: &Dim) -> TokenStream {
    match static_dim(facts, d) {
        Some(v) => quote!(::tessel::__private::Dim::Static(#v)),
        None => {
            let name = dim_name(d);
            quote!(::tessel::__private::Dim::Runtime(#name))
        }
    }
}

/// A dimension as written.
pub(crate) fn dim_name(d: &Dim) -> String {
    match d {
        Dim::Lit(v) => v.value.to_string(),
        Dim::Name(n) => n.to_string(),
    }
}

/// The value of a static dimension (a literal or a const), or `None` for a runtime dimension.
/// Names follow `typeck`'s decision (`Facts::runtime_dims`), made before the body's consts were
/// seen.
pub(crate) fn static_dim(facts: &Facts, d: &Dim) -> Option<i64> {
    match d {
        Dim::Lit(v) => Some(v.value),
        Dim::Name(n) => {
            let name = n.to_string();
            if facts.runtime_dims.contains(&name) {
                return None;
            }
            facts.consts.get(&name).copied()
        }
    }
}

/// The `Signature` of a kernel that did not compile: its name and nothing else, so that uses of
/// `SIGNATURE` still type-check.
pub(crate) fn placeholder(name: &syn::Ident) -> TokenStream {
    let name = name.to_string();
    quote! {
        ::tessel::__private::Signature {
            name: #name,
            params: &[],
            runtime_dims: &[],
            warpgroups: 1,
            cluster: [1, 1, 1],
            smem_bytes: 0,
        }
    }
}
