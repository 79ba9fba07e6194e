//! Reading the `#[kernel]` functions, `#[kernels]` modules and `#[kernel_fns]` libraries of the
//! `tests/ui` cases so that tests can hand them to `tessel_compiler` directly, the way rustc hands
//! them to the macros: the attribute's tokens apart from the item, which no longer carries the
//! attribute (a module's with its libraries loaded, as their macros load them).
//!
//! Shared by `tests/ui.rs`, `tests/mutation.rs` and `tests/compile_time.rs` (`#[path]` modules).

#![allow(dead_code)]

use proc_macro2::{Delimiter, Group, TokenStream, TokenTree};
use quote::ToTokens;
use std::path::{Path, PathBuf};
use syn::parse::{ParseStream, Parser};
use syn::visit_mut::VisitMut as _;

/// One `#[kernel(..)] fn` of a case file.
pub struct Kernel {
    /// The function's name, for messages.
    pub name: String,
    /// The tokens inside `#[kernel(..)]`.
    pub attr: TokenStream,
    /// The function without its `#[kernel]` attribute.
    pub item: TokenStream,
}

/// The root of this test package (`compiler-tests/`), which holds `tests/ui`.
pub fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

/// The `.rs` files directly inside `tests/ui/<dir>`, sorted.
pub fn case_files(dir: &str) -> Vec<PathBuf> {
    let mut files: Vec<PathBuf> = std::fs::read_dir(root().join("tests/ui").join(dir))
        .unwrap_or_else(|e| panic!("tests/ui/{dir}: {e}"))
        .filter_map(|entry| entry.ok().map(|e| e.path()))
        .filter(|p| p.extension().is_some_and(|x| x == "rs"))
        .collect();
    files.sort();
    files
}

/// The compile-fail areas of `tests/ui`, as `tests/ui.rs` registers them with trybuild.
pub const FAIL_AREAS: &[&str] = &[
    "alloc",
    "acc",
    "layout",
    "mma",
    "wgmma",
    "memory",
    "semaphore",
    "sync",
    "syntax",
    "functions",
    "generic",
    "devices",
];

/// The compile-fail cases whose kernels compile: rustc rejects a use of the kernel (a call of an
/// instance the kernel does not declare) or of a library (a path in `uses(..)` that names none), so
/// `#[kernel]` reports no error of its own.
pub const REJECTED_AT_A_CALL: &[&str] =
    &["generic/undeclared-instance.rs", "generic/own-signature-call.rs", "functions/library-unknown.rs"];

/// Every kernel of a file, in source order.
pub fn kernels_of(path: &Path) -> Vec<Kernel> {
    let src = std::fs::read_to_string(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    kernels_in(&src).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

/// Every kernel of a source text: its `#[kernel]` functions, and those its `macro_rules!` write.
pub fn kernels_in(src: &str) -> Result<Vec<Kernel>, syn::Error> {
    let file = syn::parse_file(src)?;
    let mut out = Vec::new();
    collect_kernels(file.items, &mut Vec::new(), &mut out)?;
    Ok(out)
}

/// The kernels among `items`, in order, expanding the invocations of the `macro_rules!` defined
/// before them (`macros`, which this extends).
fn collect_kernels(items: Vec<syn::Item>, macros: &mut Vec<Macro>, out: &mut Vec<Kernel>) -> Result<(), syn::Error> {
    for item in items {
        let mut f = match item {
            syn::Item::Macro(m) if m.mac.path.is_ident("macro_rules") => {
                let Some(name) = m.ident else { continue };
                macros.push(Macro { name: name.to_string(), rules: macro_rules(m.mac.tokens)? });
                continue;
            }
            syn::Item::Macro(m) => {
                let Some(called) = macros.iter().find(|d| m.mac.path.is_ident(&d.name)) else { continue };
                let expansion = called.expand(&m.mac)?;
                collect_kernels(syn::parse2::<syn::File>(expansion)?.items, macros, out)?;
                continue;
            }
            syn::Item::Fn(f) => f,
            _ => continue,
        };
        let Some(pos) = f.attrs.iter().position(|a| a.path().is_ident("kernel")) else { continue };
        let attr = f.attrs.remove(pos);
        let attr = match attr.meta {
            syn::Meta::List(list) => list.tokens,
            _ => TokenStream::new(),
        };
        out.push(Kernel { name: f.sig.ident.to_string(), attr, item: f.to_token_stream() });
    }
    Ok(())
}

/// A `macro_rules!` of a case file, expanded the way rustc hands the result to `#[kernel]`: a
/// fragment `$t:ty`, `$e:expr`, `$l:literal` or `$p:path` is substituted in an invisible group
/// (`Delimiter::None`) that carries the span of the `$` in the macro's body, while its tokens keep
/// the spans they have at the invocation; `$x:ident` and `$x:tt` are substituted bare. The rules
/// of the cases only: fragments and literal tokens, no repetitions.
struct Macro {
    name: String,
    /// Each rule's matcher and transcriber.
    rules: Vec<(TokenStream, TokenStream)>,
}

/// A fragment matched by a rule: its name, its tokens, and whether it is substituted in a group.
type Binding = (String, Vec<TokenTree>, bool);

fn macro_rules(body: TokenStream) -> Result<Vec<(TokenStream, TokenStream)>, syn::Error> {
    let parse = |input: ParseStream| {
        let mut rules = Vec::new();
        while !input.is_empty() {
            let matcher: proc_macro2::Group = input.parse()?;
            input.parse::<syn::Token![=>]>()?;
            let transcriber: proc_macro2::Group = input.parse()?;
            rules.push((matcher.stream(), transcriber.stream()));
            if !input.is_empty() {
                input.parse::<syn::Token![;]>()?;
            }
        }
        Ok(rules)
    };
    parse.parse2(body)
}

impl Macro {
    /// The expansion of an invocation by its first rule that matches.
    fn expand(&self, call: &syn::Macro) -> Result<TokenStream, syn::Error> {
        let input: Vec<TokenTree> = call.tokens.clone().into_iter().collect();
        for (matcher, transcriber) in &self.rules {
            let mut bindings = Vec::new();
            if match_tokens(matcher.clone(), &input, &mut bindings) {
                return Ok(transcribe(transcriber.clone(), &bindings));
            }
        }
        Err(syn::Error::new_spanned(call, format!("no rule of `{}!` matches (tests/ui/support.rs)", self.name)))
    }
}

/// Whether `input` matches `matcher` exactly, binding its fragments.
fn match_tokens(matcher: TokenStream, input: &[TokenTree], bindings: &mut Vec<Binding>) -> bool {
    let pattern: Vec<TokenTree> = matcher.into_iter().collect();
    let (mut p, mut at) = (0, 0);
    while p < pattern.len() {
        if let [TokenTree::Punct(dollar), TokenTree::Ident(name), TokenTree::Punct(colon), TokenTree::Ident(kind), ..] =
            &pattern[p..]
        {
            if dollar.as_char() == '$' && colon.as_char() == ':' {
                let Some(n) = fragment_len(&kind.to_string(), &input[at..]) else { return false };
                let wrapped = !matches!(kind.to_string().as_str(), "ident" | "tt" | "lifetime");
                bindings.push((name.to_string(), input[at..at + n].to_vec(), wrapped));
                (p, at) = (p + 4, at + n);
                continue;
            }
        }
        let same = match (&pattern[p], input.get(at)) {
            (TokenTree::Group(a), Some(TokenTree::Group(b))) => {
                a.delimiter() == b.delimiter()
                    && match_tokens(a.stream(), &b.stream().into_iter().collect::<Vec<_>>(), bindings)
            }
            (TokenTree::Punct(a), Some(TokenTree::Punct(b))) => a.as_char() == b.as_char(),
            (TokenTree::Ident(a), Some(TokenTree::Ident(b))) => a == b,
            (TokenTree::Literal(a), Some(TokenTree::Literal(b))) => a.to_string() == b.to_string(),
            _ => false,
        };
        if !same {
            return false;
        }
        (p, at) = (p + 1, at + 1);
    }
    at == input.len()
}

/// How many token trees at the start of `input` a fragment of `kind` takes, if it can start there.
fn fragment_len(kind: &str, input: &[TokenTree]) -> Option<usize> {
    let fragment = |s: ParseStream| {
        match kind {
            "ty" => s.parse::<syn::Type>().map(|_| ()),
            "expr" => s.parse::<syn::Expr>().map(|_| ()),
            "literal" => s.parse::<syn::Lit>().map(|_| ()),
            "path" => s.parse::<syn::Path>().map(|_| ()),
            "ident" => s.parse::<syn::Ident>().map(|_| ()),
            "tt" => s.parse::<TokenTree>().map(|_| ()),
            _ => Err(s.error("a fragment kind the cases do not use")),
        }?;
        Ok(s.parse::<TokenStream>()?.into_iter().count())
    };
    let left = fragment.parse2(input.iter().cloned().collect()).ok()?;
    Some(input.len() - left)
}

/// The transcriber with its fragments substituted.
fn transcribe(body: TokenStream, bindings: &[Binding]) -> TokenStream {
    let trees: Vec<TokenTree> = body.into_iter().collect();
    let mut out = Vec::new();
    let mut i = 0;
    while i < trees.len() {
        if let (TokenTree::Punct(dollar), Some(TokenTree::Ident(name))) = (&trees[i], trees.get(i + 1)) {
            let bound = bindings.iter().find(|(n, ..)| dollar.as_char() == '$' && name == n);
            if let Some((_, tokens, wrapped)) = bound {
                if *wrapped {
                    let mut group = Group::new(Delimiter::None, tokens.iter().cloned().collect());
                    group.set_span(dollar.span());
                    out.push(TokenTree::Group(group));
                } else {
                    out.extend(tokens.iter().cloned());
                }
                i += 2;
                continue;
            }
        }
        match &trees[i] {
            TokenTree::Group(g) => {
                let mut group = Group::new(g.delimiter(), transcribe(g.stream(), bindings));
                group.set_span(g.span());
                out.push(TokenTree::Group(group));
            }
            other => out.push(other.clone()),
        }
        i += 1;
    }
    out.into_iter().collect()
}

/// One `#[kernels] mod` of a case file, or one `#[kernel_fns] mod` (a library).
pub struct Module {
    /// The module's name, for messages.
    pub name: String,
    /// The tokens inside `#[kernels(..)]` (none, unless the case is about them), with the libraries
    /// of its `uses(..)` loaded as their macros load them.
    pub attr: TokenStream,
    /// The module without its attribute.
    pub item: TokenStream,
}

/// Every `#[kernels]` module of a file, in source order.
pub fn modules_of(path: &Path) -> Vec<Module> {
    let src = std::fs::read_to_string(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    modules_in(&src).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

/// Every `#[kernels]` module of a source text whose libraries are modules of the same text (a
/// module that uses another is left out: rustc rejects it at the library's path).
pub fn modules_in(src: &str) -> Result<Vec<Module>, syn::Error> {
    // One parse: a module's tokens and its libraries' share a source (mutation.rs tells them apart
    // from a mutant's by it).
    let file = syn::parse_file(src)?;
    let libraries = attributed_modules(&file, "kernel_fns");
    let library = |path: &syn::Path| {
        let name = path.segments.last()?.ident.to_string();
        libraries.iter().find(|l| l.name == name).map(|l| l.item.clone())
    };
    let mut out = Vec::new();
    for m in attributed_modules(&file, "kernels") {
        if let Ok(attr) = tessel_compiler::module::load(m.attr, library) {
            out.push(Module { attr, ..m });
        }
    }
    Ok(out)
}

/// Every `#[kernel_fns]` library of a file, in source order.
pub fn libraries_of(path: &Path) -> Vec<Module> {
    let src = std::fs::read_to_string(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    libraries_in(&src).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

/// Every `#[kernel_fns]` library of a source text, in source order.
pub fn libraries_in(src: &str) -> Result<Vec<Module>, syn::Error> {
    Ok(attributed_modules(&syn::parse_file(src)?, "kernel_fns"))
}

/// The modules of a file with the attribute `name`.
fn attributed_modules(file: &syn::File, name: &str) -> Vec<Module> {
    let mut out = Vec::new();
    for item in &file.items {
        let syn::Item::Mod(m) = item else { continue };
        let mut m = m.clone();
        let Some(pos) = m.attrs.iter().position(|a| a.path().is_ident(name)) else { continue };
        let attr = match m.attrs.remove(pos).meta {
            syn::Meta::List(list) => list.tokens,
            _ => TokenStream::new(),
        };
        out.push(Module { name: m.ident.to_string(), attr, item: m.to_token_stream() });
    }
    out
}

/// Whether a line of `describe` is a note at a call of a kernel function (which follows an error
/// in the function's body, and is no rejection of its own): the code `InCall` gives.
pub fn is_call_note(described: &str) -> bool {
    described.contains(&format!(": [{}] in this call of `", tessel_compiler::codes::Code::InCall))
}

/// Every error of a rejected kernel as `line:column: first line of the message`.
pub fn describe(err: &syn::Error) -> Vec<String> {
    err.clone()
        .into_iter()
        .map(|e| {
            let start = e.span().start();
            let first = e.to_string().lines().next().unwrap_or_default().to_string();
            format!("{}:{}: {first}", start.line, start.column + 1)
        })
        .collect()
}

/// `k` with every operand, statement and type of its attribute and function in an invisible group
/// (`Delimiter::None`), nested: as if a `macro_rules!` had passed each as a fragment (`$e:expr`,
/// `$t:ty`). `None` if the function does not parse.
pub fn as_fragments(k: &Kernel) -> Option<Kernel> {
    let mut item: syn::ItemFn = syn::parse2(k.item.clone()).ok()?;
    let mut attr =
        syn::punctuated::Punctuated::<syn::Expr, syn::Token![,]>::parse_terminated.parse2(k.attr.clone()).ok()?;
    Fragmenter.visit_item_fn_mut(&mut item);
    for arg in attr.iter_mut() {
        Fragmenter.visit_expr_mut(arg);
        in_group(arg);
    }
    Some(Kernel { name: k.name.clone(), attr: attr.to_token_stream(), item: item.to_token_stream() })
}

struct Fragmenter;

fn in_group(e: &mut syn::Expr) {
    let inner = std::mem::replace(e, syn::Expr::Verbatim(TokenStream::new()));
    *e = syn::Expr::Group(syn::ExprGroup { attrs: Vec::new(), group_token: Default::default(), expr: Box::new(inner) });
}

impl syn::visit_mut::VisitMut for Fragmenter {
    fn visit_expr_mut(&mut self, e: &mut syn::Expr) {
        syn::visit_mut::visit_expr_mut(self, e);
        match e {
            syn::Expr::Binary(b) => {
                in_group(&mut b.left);
                in_group(&mut b.right);
            }
            syn::Expr::Unary(u) => in_group(&mut u.expr),
            syn::Expr::Call(c) => c.args.iter_mut().for_each(in_group),
            syn::Expr::MethodCall(m) => {
                in_group(&mut m.receiver);
                m.args.iter_mut().for_each(in_group);
            }
            syn::Expr::Array(a) => a.elems.iter_mut().for_each(in_group),
            syn::Expr::Tuple(t) => t.elems.iter_mut().for_each(in_group),
            syn::Expr::Cast(c) => in_group(&mut c.expr),
            syn::Expr::Range(r) => r.start.iter_mut().chain(r.end.iter_mut()).for_each(|e| in_group(e)),
            syn::Expr::Assign(a) => in_group(&mut a.right),
            syn::Expr::If(i) => in_group(&mut i.cond),
            syn::Expr::ForLoop(f) => in_group(&mut f.expr),
            _ => {}
        }
    }

    fn visit_stmt_mut(&mut self, s: &mut syn::Stmt) {
        syn::visit_mut::visit_stmt_mut(self, s);
        match s {
            // `$e;`; a block-like statement without `;` (`for`, `if`) would not read as one.
            syn::Stmt::Expr(e, Some(_)) => in_group(e),
            syn::Stmt::Local(syn::Local { init: Some(init), .. }) => in_group(&mut init.expr),
            _ => {}
        }
    }

    fn visit_type_mut(&mut self, t: &mut syn::Type) {
        syn::visit_mut::visit_type_mut(self, t);
        let inner = std::mem::replace(t, syn::Type::Verbatim(TokenStream::new()));
        *t = syn::Type::Group(syn::TypeGroup { group_token: Default::default(), elem: Box::new(inner) });
    }
}
