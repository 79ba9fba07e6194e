//! The module emitted beside the errors of a rejected kernel: the same items with the same
//! parameter types, so that the crate's calls of `launch` and `interpret` add no errors of their
//! own. Its bodies never run (the crate does not compile); they return an internal error anyway.

use super::params::{host_param, HostParam};
use super::{module, Input};
use crate::syntax::ast::Kernel;
use crate::typeck::Facts;
use proc_macro2::TokenStream;
use quote::{format_ident, quote};

/// The fallback module. `kernel` and `facts` are what the front end could read and check.
pub fn fallback(kernel: &Kernel, facts: &Facts, input: &Input) -> TokenStream {
    let func = &input.item.func;
    let name = &func.sig.ident;
    let params: Vec<Param> = func
        .sig
        .inputs
        .iter()
        .enumerate()
        .map(|(i, arg)| param(kernel, i, arg))
        .filter(|p| !kernel.left_out.contains(&p.name))
        .collect();
    // A kernel of several devices launches on a group, with per-rank arguments (`host::group`).
    let group = kernel.attr.devices.is_some();
    let shapes = declare(&params, |p| p.shape_type());
    let devices = declare(&params, |p| if group { p.group_type() } else { p.device_type() });
    let hosts = declare(&params, |p| if group { p.group_host_type() } else { p.host_type() });
    let n_dims = facts.runtime_dims.len();
    let signature = super::signature::placeholder(name);
    let entry = name.to_string();
    let target = match group {
        true => {
            let group = super::local("group");
            quote!(#group: &::tessel::__private::DeviceGroup)
        }
        false => {
            let stream = super::local("stream");
            quote!(#stream: &impl ::tessel::__private::AsStream)
        }
    };
    let failed = quote! {
        ::core::result::Result::Err(::tessel::__private::Error::Internal(
            ::std::string::String::from(concat!("the kernel `", #entry, "` did not compile"))
        ))
    };
    let items = quote! {
        pub const SIGNATURE: ::tessel::__private::Signature = #signature;
        pub const PTX: ::tessel::__private::Ptx = ::tessel::__private::Ptx::new("");
        pub const ENTRY: &str = #entry;
        #[allow(unused_variables, clippy::too_many_arguments)]
        pub fn check_args(#(#shapes),*) -> ::tessel::Result<::tessel::__private::LaunchPlan<#n_dims>> { #failed }
        #[allow(unused_variables, clippy::too_many_arguments)]
        pub fn launch(#target, #(#devices),*) -> ::tessel::Result<()> { #failed }
        #[allow(unused_variables, clippy::too_many_arguments)]
        pub fn interpret(#(#hosts),*) -> ::tessel::Result<()> { #failed }
    };
    module(&func.vis, name, input, items)
}

/// `name: Type` for each parameter; a parameter whose type was not read takes anything. A name
/// the front end rejected for being one of the module's constants (`PTX`) would be a pattern for
/// that constant here, so it gets a hygienic name of its own.
fn declare(params: &[Param], ty: impl Fn(&HostParam) -> TokenStream) -> Vec<TokenStream> {
    params
        .iter()
        .enumerate()
        .map(|(i, p)| {
            let reserved = crate::syntax::GENERATED_ITEMS.iter().any(|item| p.name == item);
            let name = if reserved { super::local(&format!("arg{i}")) } else { p.name.clone() };
            let ty = p.host.as_ref().map_or_else(|| quote!(impl ::core::marker::Sized), &ty);
            quote!(#name: #ty)
        })
        .collect()
}

/// A parameter of the fallback: its name, and its host view when the front end read its type.
struct Param<'k> {
    name: syn::Ident,
    host: Option<HostParam<'k>>,
}

fn param<'k>(kernel: &'k Kernel, index: usize, arg: &syn::FnArg) -> Param<'k> {
    let name = match arg {
        syn::FnArg::Typed(pt) => match &*pt.pat {
            syn::Pat::Ident(pi) => Some(pi.ident.clone()),
            _ => None,
        },
        syn::FnArg::Receiver(_) => None,
    };
    let Some(name) = name else { return Param { name: format_ident!("arg{}", index), host: None } };
    let parsed = kernel.params.iter().find(|p| p.name == name);
    Param { host: parsed.and_then(|p| host_param(None, p)), name }
}
