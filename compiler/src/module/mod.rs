//! `#[kernels]`: a module of kernels and the kernel functions they share.
//!
//! An attribute macro sees only the item it is on, so a function that several kernels call needs
//! an attribute on an item that holds them all: the module. `#[kernels] mod gemm { .. }` reads the
//! module's kernel functions (its plain `fn`s) once, where they are declared, and expands each of
//! its `#[kernel(..)] fn`s as `#[kernel]` alone would, with the calls of those functions inlined
//! (`syntax::inline`). It is an attribute of its own, not `#[kernel]` on a module: `#[kernel]`'s
//! arguments describe one kernel (its grid, its warpgroups), which a module does not have, and
//! inside the module each kernel keeps its `#[kernel(..)]` as written anywhere else.
//!
//! Functions that the kernels of several modules share live in libraries, `#[kernel_fns]`
//! modules (`library`), which a module names in `#[kernels(uses(..))]` and whose functions reach
//! it through the library's macro (`uses`).
//!
//! Reading the functions, in order:
//! 1. each signature (`syntax::function::read`), the libraries' too, each library's in a scope of
//!    its own (`syntax::function::Functions`), and the names that two of them define;
//! 2. the calls between them, from which a recursive call is reported (an inlined function cannot
//!    call itself) and an order in which every function comes after those it calls (`order`);
//! 3. each body in that order (`syntax::function::check_body`), the libraries' first, so that a
//!    function that calls a function with errors is known to have errors too.
//!
//! A function with errors is reported once, where it is declared (a library's by the library);
//! each call of it in a kernel gets a note.
//!
//! The module also gets `ALL_PTX`, every instance of its kernels with its PTX (`all_ptx`): a
//! family's variants, listed once in the kernels' attributes, for the tools that go over them all.

pub mod library;
#[cfg(test)]
mod library_tests;
mod order;
#[cfg(test)]
mod tests;
mod uses;

pub use uses::load;

use crate::codes::Code;
use crate::diag::{Ctxt, Loc};
use crate::syntax::function::{self, tokens_loc, Function, Functions};
use crate::Compiled;
use proc_macro2::{Span, TokenStream};
use quote::{quote, ToTokens};
use std::collections::HashSet;
use std::rc::Rc;
use syn::spanned::Spanned as _;

/// What `#[kernels]` expands to: the module with each kernel's expansion, the errors of the
/// module's functions, and its `use` items; or, while a library of its `uses(..)` is not loaded,
/// the call of that library's macro that loads it (`uses`).
pub fn expand(attr: TokenStream, item: TokenStream) -> TokenStream {
    let ctx = Ctxt::new();
    let args = uses::read(&ctx, attr);
    if !args.uses.is_empty() {
        let errors = ctx.finish().err().map(|e| e.to_compile_error());
        let next = uses::load_next(&args, item);
        return quote!(#errors #next);
    }
    let module = match read(ctx, args, item) {
        Ok(m) => m,
        Err(e) => return e.to_compile_error(),
    };
    let kernels: TokenStream = module
        .kernels
        .iter()
        .map(|k| crate::expand_with(Some(&module.functions), k.attr.clone(), k.item.clone()))
        .collect();
    let all_ptx = all_ptx(&module.kernels);
    let errors = module.ctx.finish().err().map(|e| e.to_compile_error());
    let (outer, inner): (Vec<_>, Vec<_>) =
        module.item.attrs.iter().partition(|a| matches!(a.style, syn::AttrStyle::Outer));
    let (vis, name, uses) = (&module.item.vis, &module.item.ident, &module.uses);
    quote! {
        #(#outer)*
        #vis mod #name {
            #(#inner)*
            #errors
            // The `use` items serve the source (the names in its kernels); the expansion names
            // tessel by absolute paths.
            #(#[allow(unused_imports)] #uses)*
            #kernels
            #all_ptx
        }
    }
}

/// `ALL_PTX`: the name and PTX of every instance of every kernel of the module, in the order they
/// are written (a generic kernel's in the order of its `instances(..)`), named as messages name
/// them (`matmul::<bf16, 256>`; a plain kernel by its name): the one list of a family's variants
/// that tools (`ptxas` checks, PTX dumps) iterate. A kernel that did not compile has an empty PTX
/// here (its fallback's); its errors are reported by its own expansion.
fn all_ptx(kernels: &[KernelItem]) -> TokenStream {
    let mut entries = Vec::new();
    for k in kernels {
        let Ok(func) = syn::parse2::<syn::ItemFn>(k.item.clone()) else { continue };
        let name = &func.sig.ident;
        if !crate::generic::applies(&k.attr, &func) {
            let text = name.to_string();
            entries.push(quote!((#text, self::#name::PTX)));
            continue;
        }
        // Read again, quietly: the kernel's own expansion reports the declaration's errors.
        let ctx = Ctxt::new();
        let decl = crate::generic::decl::read(&ctx, k.attr.clone(), &func);
        drop(ctx.into_errors());
        for instance in &decl.instances {
            let values = instance.values.iter().map(|v| match *v {
                crate::generic::decl::Value::Dtype(d) => crate::host::element_type(d, name.span()).unwrap_or_default(),
                crate::generic::decl::Value::Int(n) => proc_macro2::Literal::u64_unsuffixed(n).into_token_stream(),
            });
            let text = &instance.name;
            entries.push(quote!((#text, self::#name::<#(#values),*>::PTX)));
        }
    }
    quote! {
        /// Every kernel of this module, each instance of a generic kernel apart: its name
        /// (`matmul::<bf16, 256>`) and its PTX module.
        pub const ALL_PTX: &[(&str, ::tessel::__private::Ptx)] = &[#(#entries),*];
    }
}

/// Runs the front end on every kernel of a `#[kernels]` module: the checked kernels, or every
/// error of the module (its functions' and its kernels') in one `syn::Error`. Its libraries are
/// loaded (`load` loads them from their sources).
pub fn compile(attr: TokenStream, item: TokenStream) -> Result<Vec<Compiled>, syn::Error> {
    let ctx = Ctxt::new();
    let args = uses::read(&ctx, attr);
    if let Some(path) = args.uses.first() {
        let text = format!("the library `{}` is loaded by its macro as the module expands", uses::path_text(path));
        return Err(syn::Error::new_spanned(path, text));
    }
    let module = read(ctx, args, item)?;
    let mut compiled = Vec::new();
    let mut errors = Vec::new();
    for k in &module.kernels {
        match crate::compile_with(Some(&module.functions), k.attr.clone(), k.item.clone()) {
            Ok(c) => compiled.push(c),
            Err(e) => errors.push(e),
        }
    }
    let mut all = module.ctx.finish().err();
    for e in errors {
        match &mut all {
            Some(all) => all.combine(e),
            None => all = Some(e),
        }
    }
    all.map_or(Ok(compiled), Err)
}

/// A module as read: its kernels (the attribute's tokens apart from the function, as rustc hands
/// them to `#[kernel]`), its functions, its `use` items, and the errors found so far.
struct Module {
    /// The module without its items.
    item: syn::ItemMod,
    uses: Vec<syn::ItemUse>,
    kernels: Vec<KernelItem>,
    functions: Rc<Functions>,
    ctx: Ctxt,
}

struct KernelItem {
    attr: TokenStream,
    item: TokenStream,
}

/// Reads a module whose libraries (`args`) are loaded.
fn read(ctx: Ctxt, args: uses::Args, item: TokenStream) -> Result<Module, syn::Error> {
    let mut item: syn::ItemMod = syn::parse2(item).map_err(|e| {
        let text = format!("{e} (`#[kernels]` goes on a module of kernels: `mod gemm {{ .. }}`)");
        syn::Error::new(e.span(), Code::ModuleItem.label(text))
    })?;
    let items = match item.content.take() {
        Some((_, items)) => items,
        None => {
            let what = "a #[kernels] module in another file (write its items here: `mod gemm { .. }`)";
            ctx.unsupported(Loc::new(item.mod_token.span, item.ident.span()), Code::ModuleItem, what);
            Vec::new()
        }
    };
    let Items { uses, kernels, functions } = sort_items(&ctx, items, "#[kernels]");
    let kernel_names: Vec<syn::Ident> = kernels.iter().map(|(name, _)| name.clone()).collect();
    let functions = read_functions(&ctx, &functions, &kernel_names, &args.loaded, item.ident.span());
    let kernels = kernels.into_iter().map(|(_, k)| k).collect();
    Ok(Module { item, uses, kernels, functions, ctx })
}

/// A module's items, by kind.
struct Items {
    uses: Vec<syn::ItemUse>,
    kernels: Vec<(syn::Ident, KernelItem)>,
    functions: Vec<syn::ItemFn>,
}

/// Sorts the items of a `#[kernels]` module or a `#[kernel_fns]` library (`attribute`); a name
/// defined twice and an item of another kind are reported.
fn sort_items(ctx: &Ctxt, items: Vec<syn::Item>, attribute: &str) -> Items {
    let mut out = Items { uses: Vec::new(), kernels: Vec::new(), functions: Vec::new() };
    let mut names = HashSet::new();
    for item in items {
        match item {
            syn::Item::Use(u) => out.uses.push(u),
            syn::Item::Fn(f) if !names.insert(f.sig.ident.to_string()) => {
                let message = format!("`{}` is defined twice in this module", f.sig.ident);
                ctx.type_error(f.sig.ident.span(), Code::NameClash, message, "rename one of them");
            }
            syn::Item::Fn(f) => match kernel(ctx, &f) {
                Some(k) => out.kernels.push(k),
                None => out.functions.push(f),
            },
            other => {
                let (message, code) = if attribute == "#[kernels]" {
                    let holds = "kernels (`#[kernel(..)] fn`), the kernel functions they call (plain `fn`s) and `use` \
                                 items";
                    (format!("a {attribute} module holds {holds}"), Code::ModuleItem)
                } else {
                    (format!("a {attribute} library holds kernel functions (`fn`s) and `use` items"), Code::LibraryItem)
                };
                let help = "move this item out of the module (a kernel function sees only its parameters and its \
                            own names, consts included)";
                ctx.type_error(tokens_loc(&other).unwrap_or_else(|| Span::call_site().into()), code, message, help);
            }
        }
    }
    out
}

/// Reads the kernel functions (their signatures, then their bodies, each after the functions it
/// calls) and those of the libraries `loaded` (whose errors their own expansions report) into the
/// table the kernels' calls see. `anchor` is a token of the module, whose hygiene the libraries'
/// tokens take.
fn read_functions(
    ctx: &Ctxt,
    items: &[syn::ItemFn],
    kernels: &[syn::Ident],
    loaded: &[uses::Loaded],
    anchor: Span,
) -> Rc<Functions> {
    let functions: Vec<Rc<Function>> = items.iter().map(|f| Rc::new(function::read(ctx, f))).collect();
    let libraries = uses::read_libraries(ctx, loaded, anchor);
    let mut table = Functions::new(functions.iter().cloned(), kernels.iter().map(|k| k.to_string()).collect());
    uses::add(ctx, &mut table, &functions, kernels, &libraries);
    let table = Rc::new(table);
    uses::check_libraries(&table, &libraries);
    ctx.calls.set_functions(table.clone());
    ctx.calls.set_reading_functions();
    for f in order::order(ctx, &functions) {
        function::check_body(ctx, &functions[f]);
    }
    table
}

/// The kernel `f` is, with its name; `None` for a kernel function.
fn kernel(ctx: &Ctxt, f: &syn::ItemFn) -> Option<(syn::Ident, KernelItem)> {
    let marks: Vec<usize> = (0..f.attrs.len()).filter(|i| is_kernel_attr(&f.attrs[*i])).collect();
    let &first = marks.first()?;
    let mut f = f.clone();
    for &again in &marks[1..] {
        ctx.unsupported(f.attrs[again].span(), Code::ModuleItem, "a second #[kernel] attribute on one function");
    }
    for &i in marks.iter().rev().filter(|i| **i != first) {
        f.attrs.remove(i);
    }
    let attr = f.attrs.remove(first);
    let tokens = match attr.meta {
        syn::Meta::List(list) => list.tokens,
        syn::Meta::Path(_) => TokenStream::new(),
        syn::Meta::NameValue(nv) => {
            ctx.unsupported(nv.eq_token.span, Code::ModuleItem, "`#[kernel = ..]` (write `#[kernel(grid = (..))]`)");
            TokenStream::new()
        }
    };
    Some((f.sig.ident.clone(), KernelItem { attr: tokens, item: f.to_token_stream() }))
}

/// `#[kernel(..)]` or `#[tessel::kernel(..)]`.
fn is_kernel_attr(attr: &syn::Attribute) -> bool {
    let segs: Vec<String> = attr.path().segments.iter().map(|s| s.ident.to_string()).collect();
    matches!(segs.iter().map(String::as_str).collect::<Vec<_>>()[..], ["kernel"] | ["tessel", "kernel"])
}
