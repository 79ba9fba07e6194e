//! `host`: the items a kernel expands to, via quote.
//!
//! A kernel `fn name(..)` becomes a module `name` (with the function's visibility) holding:
//!
//! ```text
//! pub const SIGNATURE: Signature;   // the checked signature as data
//! pub const PTX: Ptx;               // the PTX module (crate::ptx), deflated in a static (embed)
//! pub const ENTRY: &str;            // its entry point, the kernel's name
//! pub fn check_args(<shape or scalar per parameter>) -> Result<LaunchPlan<DIMS>>;
//! pub fn launch(stream: &impl AsStream, <&impl AsDeviceView<T> / &mut impl AsDeviceViewMut<T> / scalar ..>) -> Result<()>;
//! static PROGRAM: Embedded;        // the program (crate::lower), encoded, for the interpreter
//! pub fn interpret(<&HostTensor<T> / &mut HostTensor<T> / scalar ..>) -> Result<()>;
//! ```
//!
//! Generated code names tessel only through `::tessel::__private` (and `::tessel::Result`), so user
//! crates need nothing else in scope. Parameter types carry the spans of the user's parameter
//! types, so rustc's type errors at call sites point at the kernel's signature; locals of the
//! generated bodies are hygienic (`Span::mixed_site`), so any parameter name works.

mod embed;
mod fallback;
pub(crate) mod generic;
mod generic_fallback;
pub(crate) mod grid;
mod group;
mod interpret;
mod launch;
mod params;
mod per_instance;
mod signature;
#[cfg(test)]
mod tests;

pub use fallback::fallback;
pub(crate) use params::element_type;

use crate::diag::Ctxt;
use crate::syntax::ast::Kernel;
use proc_macro2::{Span, TokenStream};
use quote::quote;
use syn::Ident;
use tessel_ir::Program;

/// What the macro received: the attribute's arguments and the function, read once.
pub struct Input {
    pub attr: TokenStream,
    pub item: crate::syntax::Item,
}

/// The module for a kernel that passed checking, whose program is `program` and whose PTX is `ptx`;
/// or the errors of the parameters and grid expressions the host side cannot represent.
pub fn expand(kernel: &Kernel, program: &Program, ptx: &str, input: &Input) -> Result<TokenStream, syn::Error> {
    let items = items(kernel, program, ptx)?;
    Ok(module(&kernel.vis, &kernel.name, input, items))
}

/// The items of a checked kernel's module (`expand`), without the module: a generic kernel keeps
/// one set per instance (`generic`).
pub(crate) fn items(kernel: &Kernel, program: &Program, ptx: &str) -> Result<TokenStream, syn::Error> {
    let ctx = Ctxt::new();
    let params = params::host_params(&ctx, kernel);
    let signature = signature::signature(kernel, program);
    let check_args = launch::check_args(&ctx, kernel, program, &params);
    let bytes = tessel_ir::codec::to_bytes(program);
    // A kernel of several devices runs on a group (`group`); `check_args` is each rank's.
    let (launch, interpret) = match program.devices {
        None => (launch::launch(&ctx, kernel, program, &params), interpret::interpret(&params, &bytes)),
        Some(_) => (group::launch(&ctx, kernel, program, &params), group::interpret(&params, &bytes)),
    };
    ctx.finish()?;
    let entry = kernel.name.to_string();
    let ptx = embed::ptx_const(ptx, kernel.name.span())?;
    let items = quote! {
        /// The kernel's checked signature: parameters, runtime dimensions and resources.
        pub const SIGNATURE: ::tessel::__private::Signature = #signature;
        #ptx
        /// The name of the kernel's entry point in `PTX`.
        pub const ENTRY: &str = #entry;
        #check_args
        #launch
        #interpret
    };
    Ok(items)
}

/// `mod name { items }` with the function's visibility, documentation and `cfg`s.
fn module(vis: &syn::Visibility, name: &Ident, input: &Input, items: TokenStream) -> TokenStream {
    let attrs = forwarded_attrs(&input.item.func);
    // The user's documentation leads; ours follows as its own paragraph.
    let gap = attrs.iter().any(|a| a.path().is_ident("doc")).then(|| quote!(#[doc = ""]));
    let doc = format!(
        "The `{name}` kernel (`#[kernel]`): `launch` runs it on a Hopper GPU, `interpret` on the CPU, \
         `check_args` checks arguments without either."
    );
    quote! {
        #(#attrs)*
        #gap
        #[doc = #doc]
        #[allow(non_snake_case, dead_code)]
        #vis mod #name {
            #items
        }
    }
}

/// The function's attributes that belong on its module: documentation and `cfg`s.
fn forwarded_attrs(func: &syn::ItemFn) -> Vec<&syn::Attribute> {
    func.attrs.iter().filter(|a| a.path().is_ident("doc") || a.path().is_ident("cfg")).collect()
}

/// A local of a generated body, invisible to the user's names (`mixed_site` hygiene, as in
/// `macro_rules!`), so that a kernel parameter may be called `stream` or `dims`.
/// `name` may embed a user's name, which may be raw (`r#type`): the prefix is dropped.
fn local(name: &str) -> Ident {
    Ident::new(&name.replace("r#", ""), Span::mixed_site())
}
