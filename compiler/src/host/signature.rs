//! `SIGNATURE`: the kernel's checked signature as data (`tessel::__private::Signature`), which the
//! launch checks read the expected shapes from and tests can inspect.

use crate::syntax::ast::Kernel;
use proc_macro2::TokenStream;
use quote::{quote, quote_spanned};
use tessel_ir::program::{DimSpec, ParamKind, Program};

/// The `Signature` constructor of a checked kernel's program (`kernel` gives the parameters' spans).
pub(crate) fn signature(kernel: &Kernel, program: &Program) -> TokenStream {
    let name = &program.name;
    let params = kernel.params.iter().zip(&program.params).map(|(p, info)| {
        let pname = &info.name;
        let kind = match &info.kind {
            ParamKind::Gmem { dtype, mutable, shape, peers } => {
                let dtype = dtype.name();
                let shape = shape.iter().map(|d| dim(program, *d));
                quote! {
                    ::tessel::__private::ParamKind::Gmem {
                        dtype: #dtype,
                        shape: &[#(#shape),*],
                        mutable: #mutable,
                        peers: #peers,
                    }
                }
            }
            ParamKind::Scalar(d) => {
                let dtype = d.name();
                quote!(::tessel::__private::ParamKind::Scalar { dtype: #dtype })
            }
        };
        quote_spanned!(p.name.span()=> ::tessel::__private::Param { name: #pname, kind: #kind })
    });
    let dims = &program.runtime_dims;
    let warpgroups = program.warpgroups as u32;
    let [cx, cy, cz] = program.cluster.map(|c| c as u32);
    let smem = u32::try_from(program.smem_bytes).unwrap_or(u32::MAX);
    let devices = program.device_count() as u32;
    quote! {
        ::tessel::__private::Signature {
            name: #name,
            params: &[#(#params),*],
            runtime_dims: &[#(#dims),*],
            warpgroups: #warpgroups,
            cluster: [#cx, #cy, #cz],
            smem_bytes: #smem,
            devices: #devices,
        }
    }
}

/// One dimension of a global parameter as a `Dim` constructor (`SIGNATURE`'s, and the shapes
/// `check_args` binds).
pub(super) fn dim(program: &Program, d: DimSpec) -> TokenStream {
    match d {
        DimSpec::Static(v) => {
            let v = v as i64;
            quote!(::tessel::__private::Dim::Static(#v))
        }
        DimSpec::Runtime(i) => {
            let name = &program.runtime_dims[i];
            quote!(::tessel::__private::Dim::Runtime(#name))
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
            devices: 1,
        }
    }
}
