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
//! Reading the functions, in order:
//! 1. each signature (`syntax::function::read`);
//! 2. the calls between them, from which a recursive call is reported (an inlined function cannot
//!    call itself) and an order in which every function comes after those it calls;
//! 3. each body in that order (`syntax::function::check_body`), so that a function that calls a
//!    function with errors is known to have errors too.
//!
//! A function with errors is reported once, here; each call of it in a kernel gets a note.
//!
//! The module also gets `ALL_PTX`, every instance of its kernels with its PTX (`all_ptx`): a
//! family's variants, listed once in the kernels' attributes, for the tools that go over them all.

#[cfg(test)]
mod tests;

use crate::codes::Code;
use crate::diag::{Ctxt, Loc};
use crate::syntax::function::{self, tokens_loc, Function, Functions};
use crate::Compiled;
use proc_macro2::{Span, TokenStream};
use quote::{quote, ToTokens};
use std::collections::{HashMap, HashSet};
use std::rc::Rc;
use syn::spanned::Spanned as _;
use syn::visit_mut::{self, VisitMut};

/// What `#[kernels]` expands to: the module with each kernel's expansion, the errors of the
/// module's functions, and its `use` items.
pub fn expand(attr: TokenStream, item: TokenStream) -> TokenStream {
    let module = match read(attr, item) {
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
/// error of the module (its functions' and its kernels') in one `syn::Error`.
pub fn compile(attr: TokenStream, item: TokenStream) -> Result<Vec<Compiled>, syn::Error> {
    let module = read(attr, item)?;
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

fn read(attr: TokenStream, item: TokenStream) -> Result<Module, syn::Error> {
    let mut item: syn::ItemMod = syn::parse2(item).map_err(|e| {
        let text = format!("{e} (`#[kernels]` goes on a module of kernels: `mod gemm {{ .. }}`)");
        syn::Error::new(e.span(), Code::ModuleItem.label(text))
    })?;
    let ctx = Ctxt::new();
    if let Some(loc) = tokens_loc(&attr) {
        ctx.unsupported(
            loc,
            Code::ModuleItem,
            "arguments of #[kernels] (each kernel takes its own, in `#[kernel(..)]`)",
        );
    }
    let items = match item.content.take() {
        Some((_, items)) => items,
        None => {
            let what = "a #[kernels] module in another file (write its items here: `mod gemm { .. }`)";
            ctx.unsupported(Loc::new(item.mod_token.span, item.ident.span()), Code::ModuleItem, what);
            Vec::new()
        }
    };
    let Items { uses, kernels, functions } = sort_items(&ctx, items);
    let kernel_names = kernels.iter().map(|(name, _)| name.to_string()).collect();
    let functions = read_functions(&ctx, &functions, kernel_names);
    let kernels = kernels.into_iter().map(|(_, k)| k).collect();
    Ok(Module { item, uses, kernels, functions, ctx })
}

/// A module's items, by kind.
struct Items {
    uses: Vec<syn::ItemUse>,
    kernels: Vec<(syn::Ident, KernelItem)>,
    functions: Vec<syn::ItemFn>,
}

/// Sorts the items; a name defined twice and an item of another kind are reported.
fn sort_items(ctx: &Ctxt, items: Vec<syn::Item>) -> Items {
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
                let message = "a #[kernels] module holds kernels (`#[kernel(..)] fn`), the kernel functions they \
                               call (plain `fn`s) and `use` items";
                let help = "move this item out of the module (a kernel function sees only its parameters and its \
                            own names, consts included)";
                ctx.type_error(
                    tokens_loc(&other).unwrap_or_else(|| Span::call_site().into()),
                    Code::ModuleItem,
                    message,
                    help,
                );
            }
        }
    }
    out
}

/// Reads the kernel functions (their signatures, then their bodies, each after the functions it
/// calls) into the table the kernels' calls see.
fn read_functions(ctx: &Ctxt, items: &[syn::ItemFn], kernels: HashSet<String>) -> Rc<Functions> {
    let functions: Vec<Rc<Function>> = items.iter().map(|f| Rc::new(function::read(ctx, f))).collect();
    let table = Rc::new(Functions::new(functions.iter().cloned(), kernels));
    ctx.calls.set_functions(table.clone());
    ctx.calls.set_reading_functions();
    for f in order(ctx, &functions) {
        function::check_body(ctx, &functions[f.index]);
        // A function that calls a function with errors cannot be inlined either.
        if f.callees.iter().any(|c| functions[*c].broken.get()) {
            functions[f.index].broken.set(true);
        }
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

/// A function in the order its body is checked, with the functions it calls.
struct Ordered {
    index: usize,
    callees: Vec<usize>,
}

/// The functions, each after the functions it calls; a call that closes a cycle is reported, and
/// every function of the cycle is broken.
fn order(ctx: &Ctxt, functions: &[Rc<Function>]) -> Vec<Ordered> {
    let index: HashMap<String, usize> = functions.iter().enumerate().map(|(i, f)| (f.name.to_string(), i)).collect();
    let calls: Vec<Vec<(usize, Span)>> = functions.iter().map(|f| calls_in(&f.body, &index)).collect();
    let mut walk =
        Walk { ctx, functions, calls: &calls, state: vec![State::New; functions.len()], path: vec![], out: vec![] };
    for f in 0..functions.len() {
        walk.visit(f);
    }
    walk.out
}

#[derive(Clone, Copy, PartialEq)]
enum State {
    New,
    /// On the current path: a call of it closes a cycle.
    Open,
    Done,
}

/// A depth-first walk of the call graph.
struct Walk<'a> {
    ctx: &'a Ctxt,
    functions: &'a [Rc<Function>],
    calls: &'a [Vec<(usize, Span)>],
    state: Vec<State>,
    path: Vec<usize>,
    out: Vec<Ordered>,
}

impl Walk<'_> {
    fn visit(&mut self, f: usize) {
        if self.state[f] != State::New {
            return;
        }
        self.state[f] = State::Open;
        self.path.push(f);
        for &(callee, at) in &self.calls[f] {
            match self.state[callee] {
                State::New => self.visit(callee),
                State::Open => self.recursion(f, callee, at),
                State::Done => {}
            }
        }
        self.path.pop();
        self.state[f] = State::Done;
        let callees = self.calls[f].iter().map(|(c, _)| *c).collect();
        self.out.push(Ordered { index: f, callees });
    }

    /// `caller` calls `callee` at `at`, and `callee` is on the path to `caller`.
    fn recursion(&self, caller: usize, callee: usize, at: Span) {
        let start = self.path.iter().position(|&g| g == callee).unwrap_or(0);
        let cycle = &self.path[start..];
        for &g in cycle {
            self.functions[g].broken.set(true);
        }
        let names: Vec<String> =
            cycle.iter().chain([&callee]).map(|&g| format!("`{}`", self.functions[g].name)).collect();
        let message = if caller == callee {
            format!("`{}` calls itself", self.functions[callee].name)
        } else {
            let (first, rest) = names.split_first().map_or(("", &[][..]), |(f, r)| (f.as_str(), r));
            format!(
                "this call of `{}` is recursive: {first} calls {}",
                self.functions[callee].name,
                rest.join(", which calls ")
            )
        };
        let help = "kernel functions are inlined at their calls, so none may call itself, directly or through \
                    others: write the repetition as a loop";
        self.ctx.type_error(at, Code::Inlining, message, help);
    }
}

/// The calls of the module's functions in `body`, in source order: the callee and the name's token.
fn calls_in(body: &syn::Block, index: &HashMap<String, usize>) -> Vec<(usize, Span)> {
    struct Finder<'a> {
        index: &'a HashMap<String, usize>,
        found: Vec<(usize, Span)>,
    }
    impl VisitMut for Finder<'_> {
        fn visit_expr_call_mut(&mut self, call: &mut syn::ExprCall) {
            if let syn::Expr::Path(p) = &*call.func {
                let name = p.path.segments.iter().map(|s| s.ident.to_string()).collect::<Vec<_>>();
                if let ([name], None) = (&name[..], p.path.leading_colon) {
                    if let Some(&f) = self.index.get(name) {
                        let at = p.path.segments.first().map_or_else(Span::call_site, |s| s.ident.span());
                        self.found.push((f, at));
                    }
                }
            }
            visit_mut::visit_expr_call_mut(self, call);
        }
    }
    let mut finder = Finder { index, found: Vec::new() };
    finder.visit_block_mut(&mut body.clone());
    finder.found
}
