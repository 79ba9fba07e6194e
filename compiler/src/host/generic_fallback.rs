//! The expansion of a rejected generic kernel (`generic::expand` on an error): the struct and
//! its items, with the signatures calls expect, beside the errors.

use super::generic::{arguments, declarations, signatures, structure, wrap, Bind, Shape};
use super::per_instance;
use crate::generic::decl::{Instance, Param};
use proc_macro2::TokenStream;
use quote::quote;

/// The expansion beside the errors of a rejected generic kernel: the struct with the same items
/// for every instance, declared or not (or, where the instances' signatures differ, for each
/// instance that could be read), so that no call of the kernel adds an error of its own. Their
/// bodies never run (the crate does not compile); they return an internal error anyway.
pub(crate) fn fallback(func: &syn::ItemFn, generics: &[Param], shape: &Shape, instances: &[Instance]) -> TokenStream {
    let the_struct = structure(func, generics, None);
    let (decls, args) = (declarations(generics), arguments(generics, Bind::Generic(generics)));
    let name = &func.sig.ident;
    let entry = name.to_string();
    let signature = super::signature::placeholder(name);
    let failed = quote! {
        ::core::result::Result::Err(::tessel::__private::Error::Internal(
            ::std::string::String::from(concat!("the kernel `", #entry, "` did not compile"))
        ))
    };
    let (shared, own) = match shape {
        Shape::Shared(sig) => {
            let [check_args, launch, interpret] = signatures(sig, Bind::Generic(generics));
            (quote!(pub #check_args { #failed } pub #launch { #failed } pub #interpret { #failed }), Vec::new())
        }
        Shape::PerInstance(_) => {
            let own = instances
                .iter()
                .filter_map(|i| {
                    let sig = per_instance::sig(shape, i)?;
                    Some(per_instance::methods(func, generics, sig, i, per_instance::Body::Failed(&failed)))
                })
                .collect();
            (TokenStream::new(), own)
        }
    };
    wrap(
        func,
        quote! {
            #the_struct
            #[allow(unused_variables, clippy::too_many_arguments)]
            impl<#(#decls),*> self::#name<#(#args),*> {
                pub const SIGNATURE: ::tessel::__private::Signature = #signature;
                pub const PTX: ::tessel::__private::Ptx = ::tessel::__private::Ptx::new("");
                pub const ENTRY: &'static str = #entry;
                #shared
            }
            #(#own)*
        },
    )
}
