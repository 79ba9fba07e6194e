//! Generic kernels: `fn matmul<T, const BN: usize>(..)` with
//! `#[kernel(.., instances((bf16, 256), (f16, 128)))]`.
//!
//! Each listed instance is compiled as a plain kernel: `subst` writes the instance's values into
//! the function and the attribute, and the ordinary pipeline (`syntax`, `typeck`, `lower`, `ptx`,
//! `host`) checks it and produces its PTX, program and host items, so every instance is checked
//! and compiled when the crate builds, and the language needs no notion of a type variable. Then
//! `host::generic` puts the instances behind one generic struct, `matmul::<bf16, 256>::launch`.
//!
//! Errors: those of the declaration (`decl`: the generics and `instances(..)`) are reported once;
//! those of an instance carry the instance's name, `(in the instance `matmul::<f16, 128>`)`, and
//! an error that several instances share (the same message at the same place) is reported once,
//! naming them all. On any error the expansion is `host::generic::fallback`, which keeps every
//! call of the kernel quiet.

pub(crate) mod decl;
pub(crate) mod subst;
#[cfg(test)]
mod tests;

pub(crate) use decl::applies;

use crate::codes::Code;
use crate::diag::{Ctxt, Loc};
use crate::syntax::ast::Kernel;
use crate::syntax::Item;
use crate::typeck::Facts;
use crate::{host, lower, ptx, syntax, Compiled, Functions};
use decl::{Decl, Value};
use proc_macro2::TokenStream;
use quote::ToTokens as _;

/// What `#[kernel]` expands to for a generic kernel (or a kernel whose attribute lists instances).
pub(crate) fn expand(functions: Option<&Functions>, attr: TokenStream, item: Item) -> TokenStream {
    let checked = check(functions, attr, &item.func);
    if checked.decl.params.is_empty() {
        return plain(functions, checked, item);
    }
    let func = &item.func;
    let (items, errors) = back_ends(&checked);
    let models = models(functions, &checked, func);
    let (shape, problem) = host::generic::shape(func, &checked.decl.params, &models);
    let report = report(&checked.decl, checked.errors.clone(), &errors).or_else(|| {
        let lost = (items.len() != checked.decl.instances.len()).then(|| "an instance lost its items".to_string());
        problem.or(lost).map(|what| internal(func, &what))
    });
    match report {
        None => {
            let instances: Vec<(&decl::Instance, TokenStream)> = checked.decl.instances.iter().zip(items).collect();
            host::generic::expand(func, &checked.decl.params, &shape, &instances)
        }
        Some(errors) => {
            let mut out = errors.to_compile_error();
            out.extend(host::generic::fallback(func, &checked.decl.params, &shape, &checked.decl.instances));
            out
        }
    }
}

/// One instance of a kernel, checked: a generic kernel's (`matmul::<bf16, 256>`), or a plain
/// kernel, its only instance, named by its function.
pub struct Instance {
    pub name: String,
    pub compiled: Compiled,
}

/// `crate::compile_instances`: every instance's front end, or every error of the kernel.
pub(crate) fn compile_instances(attr: TokenStream, item: Item) -> Result<Vec<Instance>, syn::Error> {
    if applies(&attr, &item.func) {
        return compile(None, attr, &item);
    }
    let front = crate::front_end(None, attr, &item);
    match front.errors {
        Some(errors) => Err(errors),
        None => {
            let compiled = Compiled { kernel: front.kernel, facts: front.facts };
            Ok(vec![Instance { name: item.func.sig.ident.to_string(), compiled }])
        }
    }
}

/// `crate::compile` of a generic kernel: every instance is checked, the first is returned.
pub(crate) fn compile_first(
    functions: Option<&Functions>,
    attr: TokenStream,
    item: &Item,
) -> Result<Compiled, syn::Error> {
    let first = compile(functions, attr, item)?.into_iter().next();
    first.map(|i| i.compiled).ok_or_else(|| internal(&item.func, "a generic kernel without errors has no instance"))
}

/// The front end of every instance: `Ok` with each instance's name and checked kernel (the
/// instances in the order of `instances(..)`), or every error of the kernel.
fn compile(functions: Option<&Functions>, attr: TokenStream, item: &Item) -> Result<Vec<Instance>, syn::Error> {
    let func = &item.func;
    let checked = check(functions, attr, func);
    if checked.decl.params.is_empty() {
        // `instances(..)` on a plain kernel: reported, with the plain kernel's own errors.
        let item = without_generics(item);
        let front = crate::front_end(functions, checked.decl.attr.clone(), &item);
        let errors = checked.errors.into_iter().map(|(loc, text)| loc.error(text)).chain(front.errors);
        return Err(combine(errors).unwrap_or_else(|| internal(func, "a plain kernel listed instances")));
    }
    let errors: Vec<Vec<(Loc, String)>> = checked.fronts.iter().map(|f| f.errors.clone()).collect();
    if let Some(errors) = report(&checked.decl, checked.errors.clone(), &errors) {
        return Err(errors);
    }
    let mut out = Vec::new();
    for (instance, front) in checked.decl.instances.iter().zip(checked.fronts) {
        let Some((kernel, facts)) = front.read else { return Err(internal(func, "an instance was not read")) };
        out.push(Instance { name: instance.name.clone(), compiled: Compiled { kernel, facts } });
    }
    if out.is_empty() {
        return Err(internal(func, "a generic kernel without errors has no instance"));
    }
    Ok(out)
}

/// A generic kernel read and checked: its declaration, and each instance's front end.
struct Checked {
    decl: Decl,
    /// The declaration's errors.
    errors: Vec<(Loc, String)>,
    /// One per instance of `decl.instances`, in order.
    fronts: Vec<Front>,
}

/// One instance's front end.
struct Front {
    /// The instance's kernel and what checking learned, unless its function no longer parsed.
    read: Option<(Kernel, Facts)>,
    errors: Vec<(Loc, String)>,
}

fn check(functions: Option<&Functions>, attr: TokenStream, func: &syn::ItemFn) -> Checked {
    let ctx = Ctxt::new();
    let decl = decl::read(&ctx, attr, func);
    let fronts = decl.instances.iter().map(|i| front(functions, &decl, func, &i.values)).collect();
    Checked { decl, errors: ctx.into_errors(), fronts }
}

/// Reads and checks the kernel with `values` for its generic parameters.
fn front(functions: Option<&Functions>, decl: &Decl, func: &syn::ItemFn, values: &[Value]) -> Front {
    let ctx = crate::context(functions);
    let attr = subst::tokens(decl.attr.clone(), &decl.params, values);
    let item = match subst::function(func, &decl.params, values) {
        Ok(item) => item,
        Err(e) => {
            let text = format!(
                "{}\nhelp: each instance replaces a generic parameter by its value: use `T` where a \
                 dtype may appear and a const parameter where an integer may",
                Code::GenericParam.label(&e)
            );
            return Front { read: None, errors: vec![(Loc::from(e.span()), text)] };
        }
    };
    let kernel = syntax::parse(&ctx, attr, &item);
    let facts = crate::check(&ctx, &kernel);
    Front { read: Some((kernel, facts)), errors: ctx.into_errors() }
}

/// The host items of every instance that passed checking, and every instance's errors: its front
/// end's, then its back ends' (which are the host's, or internal: see `crate::back_end`). The back
/// ends of the instances that passed run even when others failed, so that all errors come at once.
fn back_ends(checked: &Checked) -> (Vec<TokenStream>, Vec<Vec<(Loc, String)>>) {
    let mut items = Vec::new();
    let mut errors = Vec::new();
    for front in &checked.fronts {
        let mut found = front.errors.clone();
        if let Some((kernel, facts)) = front.read.as_ref().filter(|_| front.errors.is_empty()) {
            match back_end(kernel, facts) {
                Ok(tokens) => items.push(tokens),
                Err(e) => found.extend(e.into_iter().map(|e| (Loc::from(e.span()), e.to_string()))),
            }
        }
        errors.push(found);
    }
    (items, errors)
}

/// The host items of one checked instance (as `crate::back_end` makes a module's).
fn back_end(kernel: &Kernel, facts: &Facts) -> Result<TokenStream, syn::Error> {
    let program = lower::lower(kernel, facts)?;
    let ptx = ptx::emit(&program, kernel.name.span());
    let items = host::items(kernel, &program, ptx.as_deref().unwrap_or_default());
    let (_, items) = crate::both(ptx, items)?;
    Ok(items)
}

/// The kernels the generic host items take their parameter types from: every instance that was
/// read, or, when none was, the kernel with `f32` and `64` for its parameters (read for its
/// parameters only: its errors are not the user's).
fn models(functions: Option<&Functions>, checked: &Checked, func: &syn::ItemFn) -> Vec<(Kernel, Facts, Vec<Value>)> {
    let read: Vec<(Kernel, Facts, Vec<Value>)> = checked
        .decl
        .instances
        .iter()
        .zip(&checked.fronts)
        .filter_map(|(i, f)| f.read.clone().map(|(k, facts)| (k, facts, i.values.clone())))
        .collect();
    if !read.is_empty() {
        return read;
    }
    let values: Vec<Value> = checked
        .decl
        .params
        .iter()
        .map(|p| match p.kind {
            decl::Kind::Dtype => Value::Dtype(crate::types::DType::F32),
            decl::Kind::Int { .. } => Value::Int(64),
        })
        .collect();
    front(functions, &checked.decl, func, &values).read.map(|(k, facts)| (k, facts, values)).into_iter().collect()
}

/// A kernel with `instances(..)` but no generic parameters: the declaration's errors, then the
/// kernel compiled as a plain one (without the generics it could not use), so that the rest of it
/// is checked too; the plain fallback module keeps its calls quiet.
fn plain(functions: Option<&Functions>, checked: Checked, item: Item) -> TokenStream {
    let input = host::Input { attr: checked.decl.attr, item: without_generics(&item) };
    let front = crate::front_end(functions, input.attr.clone(), &input.item);
    let expanded = match front.errors {
        None => crate::back_end(&front.kernel, &front.facts, &input),
        Some(errors) => Err(errors),
    };
    let expanded = match combine(checked.errors.into_iter().map(|(loc, text)| loc.error(text))) {
        Some(declared) => crate::both(Err::<(), _>(declared), expanded).map(|(_, items)| items),
        None => expanded,
    };
    expanded.unwrap_or_else(|errors| {
        let mut out = errors.to_compile_error();
        out.extend(host::fallback(&front.kernel, &front.facts, &input));
        out
    })
}

/// The item with its (reported) generics taken out of the function and its tokens: the plain
/// kernel that `instances(..)` was wrongly given to.
fn without_generics(item: &Item) -> Item {
    let mut func = item.func.clone();
    func.sig.generics = syn::Generics::default();
    let tokens = func.to_token_stream();
    Item { func, tokens }
}

/// Every error of a generic kernel, or `None`: the declaration's, then the instances', an error
/// that several instances share (the same text at the same place) once, each naming its instances.
fn report(decl: &Decl, decl_errors: Vec<(Loc, String)>, instances: &[Vec<(Loc, String)>]) -> Option<syn::Error> {
    let mut found: Vec<(Loc, String, Vec<usize>)> = Vec::new();
    for (i, errors) in instances.iter().enumerate() {
        for (loc, text) in errors {
            let same = |(l, t, _): &&mut (Loc, String, Vec<usize>)| same_place(*l, *loc) && t == text;
            match found.iter_mut().find(|f| same(f)) {
                Some((_, _, which)) => which.push(i),
                None => found.push((*loc, text.clone(), vec![i])),
            }
        }
    }
    let named = found.into_iter().map(|(loc, text, which)| (loc, in_instances(&text, decl, &which)));
    combine(decl_errors.into_iter().chain(named).map(|(loc, text)| loc.error(text)))
}

/// `text` with the instances it occurs in named at the end of its first line.
fn in_instances(text: &str, decl: &Decl, which: &[usize]) -> String {
    let names: Vec<String> =
        which.iter().filter_map(|&i| decl.instances.get(i)).map(|i| format!("`{}`", i.name)).collect();
    let at = match names.as_slice() {
        [one] => format!("in the instance {one}"),
        _ if names.len() == decl.instances.len() => format!("in every instance: {}", names.join(", ")),
        [init @ .., last] => format!("in the instances {} and {last}", init.join(", ")),
        [] => return text.to_string(),
    };
    match text.split_once('\n') {
        Some((first, rest)) => format!("{first} ({at})\n{rest}"),
        None => format!("{text} ({at})"),
    }
}

/// Whether two errors point at the same tokens (spans have no equality; their debug form names
/// the source range, as `Ctxt::error` compares them).
fn same_place(a: Loc, b: Loc) -> bool {
    format!("{:?}{:?}", a.start, a.end) == format!("{:?}{:?}", b.start, b.end)
}

fn combine(errors: impl IntoIterator<Item = syn::Error>) -> Option<syn::Error> {
    errors.into_iter().reduce(|mut all, e| {
        all.combine(e);
        all
    })
}

fn internal(func: &syn::ItemFn, what: &str) -> syn::Error {
    let text = format!("internal tessel error: {what}\nhelp: this is a bug in tessel; please report it");
    syn::Error::new(func.sig.ident.span(), Code::Internal.label(text))
}
