//! `#[kernel_fns]`: a library of kernel functions, which the `#[kernels]` modules of this crate and
//! of other crates use (`#[kernels(uses(split_k))]`, `uses`).
//!
//! `#[kernel_fns] pub mod split_k { .. }` holds kernel functions (and `use` items). They are read
//! and checked here, as a `#[kernels]` module reads its own (signatures, the calls between them,
//! bodies), and their errors are reported here, once. The expansion is the module with a
//! `macro_rules!` that carries the functions' tokens (`carried`): exported at the crate's root
//! under a name of its own (`__tessel_kernel_fns_split_k_<hash>`, hidden) and re-exported in the
//! module as [`MACRO`], so that `split_k::tessel_kernel_fns!` is the library wherever a path
//! reaches the module. Called by a module that uses the library, the macro hands that module back
//! to `#[kernels]` with the functions (`uses` describes the chain).
//!
//! Not `kernel_fns`: the module's own `use tessel::prelude::*` brings the `#[kernel_fns]`
//! attribute into it, and rustc 1.88 (the minimum tessel supports) rejects a path to a name that
//! a glob import and a macro-expanded item both give (E0659, "ambiguous name").

use super::{read_functions, Items};
use crate::codes::Code;
use crate::diag::{Ctxt, Loc};
use crate::syntax::function::tokens_loc;
use proc_macro2::{Span, TokenStream};
use quote::{format_ident, quote};
use std::hash::{Hash, Hasher};
use syn::ext::IdentExt as _;

/// The name of a library's macro in its module: `split_k::tessel_kernel_fns!`.
pub const MACRO: &str = "tessel_kernel_fns";

/// What `#[kernel_fns]` expands to: the module, the errors of its functions, its `use` items and
/// its macro.
pub fn expand(attr: TokenStream, item: TokenStream) -> TokenStream {
    let library = match read(attr, item) {
        Ok(library) => library,
        Err(e) => return e.to_compile_error(),
    };
    let errors = library.ctx.finish().err().map(|e| e.to_compile_error());
    let module = &library.item;
    let (outer, inner): (Vec<_>, Vec<_>) = module.attrs.iter().partition(|a| matches!(a.style, syn::AttrStyle::Outer));
    let (vis, name, uses) = (&module.vis, &module.ident, &library.uses);
    let carried = carried_functions(name, &library.functions);
    let docs = function_docs(&library.functions);
    let hidden = format_ident!("__tessel_kernel_fns_{}_{:016x}", name.unraw(), fingerprint(&carried));
    let public = format_ident!("{MACRO}");
    quote! {
        #(#outer)*
        #(#[doc = #docs])*
        #vis mod #name {
            #(#inner)*
            #errors
            #(#[allow(unused_imports)] #uses)*
            /// The library's functions, for the `#[kernels(uses(..))]` modules that call them.
            #[doc(hidden)]
            #[macro_export]
            macro_rules! #hidden {
                ([$($state:tt)*] $($item:tt)*) => {
                    #[::tessel::kernels($($state)* #carried)]
                    $($item)*
                };
            }
            #[doc(hidden)]
            pub use #hidden as #public;
        }
    }
}

/// The errors of a library (its items' and its functions'), or `Ok`: what its expansion reports.
pub fn check(attr: TokenStream, item: TokenStream) -> Result<(), syn::Error> {
    read(attr, item)?.ctx.finish()
}

/// What a library's macro carries into the modules that use it: `mod split_k { <its functions> }`,
/// each without its documentation. `item` is the library's module without its attribute.
pub fn carried(item: TokenStream) -> Result<TokenStream, syn::Error> {
    let library = read(TokenStream::new(), item)?;
    Ok(carried_functions(&library.item.ident, &library.functions))
}

fn carried_functions(name: &syn::Ident, functions: &[syn::ItemFn]) -> TokenStream {
    let functions = functions.iter().map(|f| {
        let mut f = f.clone();
        f.attrs.retain(|a| !a.path().is_ident("doc"));
        f
    });
    quote!(mod #name { #(#functions)* })
}

/// The documentation of the library's public functions, for the module's (they are no Rust
/// items of their own): under a heading, each one's signature and its doc comment.
fn function_docs(functions: &[syn::ItemFn]) -> Vec<String> {
    let public: Vec<&syn::ItemFn> = functions.iter().filter(|f| matches!(f.vis, syn::Visibility::Public(_))).collect();
    if public.is_empty() {
        return Vec::new();
    }
    let mut docs = vec![String::new(), " # Kernel functions".to_string()];
    for f in public {
        docs.push(String::new());
        docs.push(format!(" ```text\n pub {}\n ```", signature_text(&f.sig)));
        docs.extend(f.attrs.iter().filter_map(doc_line));
    }
    docs
}

/// A `///` line's text.
fn doc_line(attr: &syn::Attribute) -> Option<String> {
    match &attr.meta {
        syn::Meta::NameValue(nv) if nv.path.is_ident("doc") => match &nv.value {
            syn::Expr::Lit(syn::ExprLit { lit: syn::Lit::Str(s), .. }) => Some(s.value()),
            _ => None,
        },
        _ => None,
    }
}

/// A signature as it is written: `fn load<T>(a: Gmem<T, M, K>, i: i32) -> Regs<T, 64, Layout::Wgmma>`
/// (from the tokens' text, which spaces every token and may break long lines).
fn signature_text(sig: &syn::Signature) -> String {
    let spaced = quote!(#sig).to_string().split_whitespace().collect::<Vec<_>>().join(" ");
    let tight = [(" , ", ", "), (" : ", ": "), (" :: ", "::"), (":: ", "::"), (" < ", "<"), ("< ", "<"), (" >", ">")];
    let tight =
        tight.into_iter().chain([("( ", "("), (" )", ")"), (",)", ")"), (" (", "("), ("->(", "-> ("), ("& ", "&")]);
    tight.fold(spaced, |text, (from, to)| text.replace(from, to))
}

/// A hash of the carried tokens, which tells two libraries of one name in a crate apart (their
/// macros are both exported at its root).
fn fingerprint(carried: &TokenStream) -> u64 {
    let mut hasher = std::collections::hash_map::DefaultHasher::new();
    carried.to_string().hash(&mut hasher);
    hasher.finish()
}

/// A library as read.
struct Library {
    /// The module without its items.
    item: syn::ItemMod,
    uses: Vec<syn::ItemUse>,
    functions: Vec<syn::ItemFn>,
    ctx: Ctxt,
}

fn read(attr: TokenStream, item: TokenStream) -> Result<Library, syn::Error> {
    let mut item: syn::ItemMod = syn::parse2(item).map_err(|e| {
        let text = format!("{e} (`#[kernel_fns]` goes on a module of kernel functions: `pub mod split_k {{ .. }}`)");
        syn::Error::new(e.span(), Code::LibraryItem.label(text))
    })?;
    let ctx = Ctxt::new();
    if let Some(loc) = tokens_loc(&attr) {
        let help = "a library's functions are read as they are written; the modules that call them name it in \
                    `#[kernels(uses(..))]`";
        ctx.type_error(loc, Code::LibraryItem, "#[kernel_fns] takes no arguments", help);
    }
    let items = match item.content.take() {
        Some((_, items)) => items,
        None => {
            let what = "a #[kernel_fns] module in another file (write its items here: `pub mod split_k { .. }`)";
            ctx.unsupported(Loc::new(item.mod_token.span, item.ident.span()), Code::LibraryItem, what);
            Vec::new()
        }
    };
    let Items { uses, kernels, functions } = super::sort_items(&ctx, items, "#[kernel_fns]");
    for (name, _) in &kernels {
        let help = "put the kernels in a #[kernels] module that uses this library: `#[kernels(uses(..))]`";
        ctx.type_error(
            name.span(),
            Code::LibraryItem,
            "a #[kernel_fns] library holds kernel functions, not kernels",
            help,
        );
    }
    read_functions(&ctx, &functions, &[], &[], Span::call_site());
    Ok(Library { item, uses, functions, ctx })
}
