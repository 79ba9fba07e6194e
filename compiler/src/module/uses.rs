//! `#[kernels(uses(split_k))]`: kernel functions from libraries, the `#[kernel_fns]` modules of
//! this crate or of others (`library`).
//!
//! An attribute macro sees only the item it is on, never another module's tokens, so a library's
//! functions reach a module through the library's own `macro_rules!`, which carries them
//! (`library::expand`) and which rustc finds by path, as it finds any item: `split_k::tessel_kernel_fns!`.
//! The module's attribute loads its libraries one at a time, each step an expansion:
//!
//! ```text
//! #[kernels(uses(a, b))] mod m { .. }
//!   -> a::tessel_kernel_fns! { [uses(b) __library a] mod m { .. } }
//!   -> #[::tessel::kernels(uses(b) __library a mod a { <a's functions> })] mod m { .. }
//!   -> b::tessel_kernel_fns! { [uses() __library a mod a { .. } __library b] mod m { .. } }
//!   -> #[::tessel::kernels(uses() __library a mod a { .. } __library b mod b { .. })] mod m { .. }
//!   -> the module, its kernels calling the functions of both
//! ```
//!
//! A path that names no library is rustc's error at the path, which the macro's path carries
//! (`cannot find module or crate`, or ``cannot find `tessel_kernel_fns` in `split_k` ``). The
//! functions keep their own tokens' places, so an error in a library function's body points at
//! the library's source; `respan` gives them the module's hygiene (the place they are used), so
//! that rustc reports them there and not "in this macro invocation" of the library's macro.
//!
//! Each library's functions are read again in each module that uses it (quietly: a library
//! reports its own errors, once, where it is declared), into a scope of their own (`Functions`),
//! where a library function's calls resolve; the module sees the libraries' public functions by
//! their names, and a name that two of them, or one of them and the module, define is an error.

use super::order::order;
use crate::codes::Code;
use crate::diag::{Ctxt, Loc};
use crate::syntax::function::{self, tokens_loc, Function, Functions};
use proc_macro2::{Group, Span, TokenStream, TokenTree};
use quote::{quote, quote_spanned, ToTokens};
use std::collections::HashMap;
use std::rc::Rc;
use syn::parse::{ParseStream, Parser};
use syn::punctuated::Punctuated;

/// The arguments of `#[kernels(..)]`: the libraries still to load, and those loaded.
#[derive(Default)]
pub(super) struct Args {
    /// `uses(a, b::c)`: the paths of the libraries not loaded yet, in order.
    pub uses: Vec<syn::Path>,
    /// `__library a mod a { .. }`, written by `a`'s macro: each library loaded so far.
    pub loaded: Vec<Loaded>,
}

/// A library as its macro hands it to the module: the path the module names it by, and its
/// functions (`library::carried`).
pub(super) struct Loaded {
    pub path: syn::Path,
    pub module: syn::ItemMod,
}

/// Reads `#[kernels(..)]`'s arguments; a malformed one and a library listed twice are reported.
pub(super) fn read(ctx: &Ctxt, attr: TokenStream) -> Args {
    let args = match parse.parse2(attr) {
        Ok(args) => args,
        Err(e) => {
            let message =
                format!("{e}: #[kernels] takes `uses(library, ..)`, the kernel-function libraries its kernels call");
            let help = "name each library by its path, `#[kernels(uses(split_k, crate::tiles))]`; each kernel takes \
                        its own arguments, in `#[kernel(..)]`";
            ctx.type_error(e.span(), Code::Uses, message, help);
            return Args::default();
        }
    };
    // The chain keeps one of each; `load` (for tools) loads what it is given.
    let mut seen = Vec::new();
    let mut once = |path: &syn::Path| {
        let text = path_text(path);
        if seen.contains(&text) {
            let at = tokens_loc(path).unwrap_or_else(|| Span::call_site().into());
            ctx.type_error(at, Code::Uses, format!("`{text}` is listed twice in `uses(..)`"), "list each library once");
            return false;
        }
        seen.push(text);
        true
    };
    let loaded = args.loaded.into_iter().filter(|l| once(&l.path)).collect();
    let uses = args.uses.into_iter().filter(|p| once(p)).collect();
    Args { uses, loaded }
}

fn parse(input: ParseStream) -> syn::Result<Args> {
    let mut args = Args::default();
    while !input.is_empty() {
        let key: syn::Ident = input.call(syn::ext::IdentExt::parse_any)?;
        match key.to_string().as_str() {
            "uses" => {
                let content;
                syn::parenthesized!(content in input);
                let paths = Punctuated::<syn::Path, syn::Token![,]>::parse_terminated_with(&content, |p| {
                    p.call(syn::Path::parse_mod_style)
                })?;
                args.uses.extend(paths);
            }
            "__library" => {
                let path = input.call(syn::Path::parse_mod_style)?;
                args.loaded.push(Loaded { path, module: input.parse()? });
            }
            _ => return Err(syn::Error::new(key.span(), format!("unknown argument `{key}`"))),
        }
        // The chain writes its arguments without commas.
        input.parse::<Option<syn::Token![,]>>()?;
    }
    Ok(args)
}

/// `a::b`, as messages name a library.
pub(super) fn path_text(path: &syn::Path) -> String {
    path.to_token_stream().to_string().replace(' ', "")
}

/// The next step of the chain: the call of the first library's macro, which hands the module back
/// to `#[kernels]` with that library's functions. Its path is the user's, so that a path that
/// names no library is reported there.
pub(super) fn load_next(args: &Args, item: TokenStream) -> TokenStream {
    let Some((next, rest)) = args.uses.split_first() else { return TokenStream::new() };
    let loaded = args.loaded.iter().map(|l| {
        let (path, module) = (&l.path, &l.module);
        quote!(__library #path #module)
    });
    let at = next.segments.last().map_or_else(Span::call_site, |s| s.ident.span());
    let name = syn::Ident::new(super::library::MACRO, at);
    quote_spanned! {at=>
        #next :: #name ! { [uses(#(#rest),*) #(#loaded)* __library #next] #item }
    }
}

/// A library's functions as a module that uses it reads them.
pub(super) struct Library {
    /// The path the module names it by (`crate::split_k`).
    pub name: String,
    /// That path's tokens, where a clash between two libraries is reported.
    pub at: Loc,
    pub functions: Vec<Rc<Function>>,
    /// The scope of its functions' calls (`Functions`).
    pub scope: usize,
}

/// Reads the signatures of the loaded libraries' functions, each library in a scope of its own
/// (from 1: 0 is the module's), quietly. `anchor` is a token of the module (its name), whose
/// hygiene the functions' tokens take (`respan`).
pub(super) fn read_libraries(ctx: &Ctxt, loaded: &[Loaded], anchor: Span) -> Vec<Library> {
    let mut libraries = Vec::new();
    for (i, l) in loaded.iter().enumerate() {
        let scope = i + 1;
        let quiet = Ctxt::new();
        let items = match syn::parse2::<syn::ItemMod>(respan(l.module.to_token_stream(), anchor)) {
            Ok(m) => m.content.map(|(_, items)| items).unwrap_or_default(),
            Err(e) => {
                ctx.internal(e.span(), format!("a library's functions, parsed once, do not parse again: {e}"));
                Vec::new()
            }
        };
        let functions = items
            .iter()
            .filter_map(|item| match item {
                syn::Item::Fn(f) => Some(f),
                _ => None,
            })
            .map(|f| {
                let mut f = function::read(&quiet, f);
                f.scope = scope;
                Rc::new(f)
            })
            .collect();
        drop(quiet.into_errors());
        let at = tokens_loc(&l.path).unwrap_or_else(|| anchor.into());
        libraries.push(Library { name: path_text(&l.path), at, functions, scope });
    }
    libraries
}

/// `tokens` with the hygiene of `anchor` and their own places.
fn respan(tokens: TokenStream, anchor: Span) -> TokenStream {
    tokens
        .into_iter()
        .map(|tree| match tree {
            TokenTree::Group(g) => {
                let mut group = Group::new(g.delimiter(), respan(g.stream(), anchor));
                group.set_span(g.span().resolved_at(anchor));
                TokenTree::Group(group)
            }
            mut other => {
                other.set_span(other.span().resolved_at(anchor));
                other
            }
        })
        .collect()
}

/// Where a name the module sees comes from.
enum Origin {
    Function(Span),
    Kernel(Span),
    Library(usize),
}

/// Adds the libraries to the module's table of functions (`module`, its own functions, and
/// `kernels`), reporting each name that two of them define.
pub(super) fn add(
    ctx: &Ctxt,
    table: &mut Functions,
    module: &[Rc<Function>],
    kernels: &[syn::Ident],
    libraries: &[Library],
) {
    let mut seen: HashMap<String, Origin> = HashMap::new();
    for f in module {
        seen.insert(f.name.to_string(), Origin::Function(f.name.span()));
    }
    for k in kernels {
        seen.entry(k.to_string()).or_insert(Origin::Kernel(k.span()));
    }
    for (i, library) in libraries.iter().enumerate() {
        for f in library.functions.iter().filter(|f| f.public) {
            let name = f.name.to_string();
            match seen.get(&name) {
                None => {
                    seen.insert(name, Origin::Library(i));
                }
                Some(origin) => clash(ctx, &name, origin, library, libraries),
            }
        }
        table.add_library(library.scope, &library.name, &library.functions);
    }
}

/// Reports that `library` defines `name`, which `origin` defines too.
fn clash(ctx: &Ctxt, name: &str, origin: &Origin, library: &Library, libraries: &[Library]) {
    let lib = &library.name;
    let (at, message, help): (Loc, String, String) = match origin {
        Origin::Function(at) => (
            (*at).into(),
            format!("`{name}` is defined in this module and in `{lib}`, a library it uses"),
            format!(
                "a module calls its libraries' functions by their names, so each name it sees is one function: \
                 rename this one, or leave `{lib}` out of `uses(..)`"
            ),
        ),
        Origin::Kernel(at) => (
            (*at).into(),
            format!("`{name}` is a kernel of this module and a function of `{lib}`, a library it uses"),
            "rename the kernel: a module calls its libraries' functions by their names".to_string(),
        ),
        Origin::Library(other) => {
            let other = libraries.get(*other).map_or("", |l| l.name.as_str());
            (
                library.at,
                format!("`{other}` and `{lib}` both define `{name}`"),
                "a module calls its libraries' functions by their names, so each name it sees is one function: \
                 rename one of them, or use one of these libraries"
                    .to_string(),
            )
        }
    };
    ctx.type_error(at, Code::LibraryClash, message, help);
}

/// Checks the libraries' function bodies (each library's in its order, its callees first),
/// quietly: what it learns is which functions have errors (`Function::broken`), whose calls then
/// get a note.
pub(super) fn check_libraries(table: &Rc<Functions>, libraries: &[Library]) {
    for library in libraries {
        let quiet = Ctxt::new();
        quiet.calls.set_functions(table.clone());
        quiet.calls.set_reading_functions();
        for f in order(&quiet, &library.functions) {
            function::check_body(&quiet, &library.functions[f]);
        }
        drop(quiet.into_errors());
    }
}

/// `attr` with each library of its `uses(..)` loaded as its macro would load it, from the
/// libraries' sources (`library(path)`: the `#[kernel_fns]` module a path names, without its
/// attribute): for tools that read a crate's sources and hand its modules to the compiler
/// directly, as rustc would after the chain of expansions. An error for a path that names no
/// library; an attribute that does not parse is returned as it is, for the module to report.
pub fn load(attr: TokenStream, library: impl Fn(&syn::Path) -> Option<TokenStream>) -> Result<TokenStream, syn::Error> {
    let Ok(mut args) = parse.parse2(attr.clone()) else { return Ok(attr) };
    for path in std::mem::take(&mut args.uses) {
        let Some(item) = library(&path) else {
            let message = format!("cannot find `{}` in `{}`", super::library::MACRO, path_text(&path));
            return Err(syn::Error::new_spanned(path, message));
        };
        let module = syn::parse2(super::library::carried(item)?)?;
        args.loaded.push(Loaded { path, module });
    }
    let loaded = args.loaded.iter().map(|l| {
        let (path, module) = (&l.path, &l.module);
        quote!(__library #path #module)
    });
    Ok(quote!(#(#loaded)*))
}
