//! The tessel compiler: reads a `#[kernel]` function, checks it, and generates what the macro emits.
//!
//! Stages are modules named after what they produce; data flows one way:
//! `syntax` (tokens -> `ast`) -> `typeck` (types, layouts, the error catalog) -> `lower` (the
//! program, `tessel_ir::Program`) -> `ptx` (the PTX module) and `host` (the items the macro expands
//! to, the encoded program among them). The dtypes and legality tables live in `tessel_ir`, shared
//! by every stage and by the interpreter.
//!
//! `module` is `#[kernels]`: it reads a module's kernel functions once (with those of the
//! `#[kernel_fns]` libraries it uses, `module::library`) and runs each of its kernels through the
//! same stages, `syntax` inlining the calls of those functions (`syntax::inline`) and `typeck`
//! checking each call (`typeck::call`). `generic` is a kernel with generic parameters: each
//! instance of its `instances(..)`, the values written in, runs through the same stages, and its
//! items are gathered under one generic struct (`host::generic`).

pub mod codes;
pub mod diag;
mod generic;
pub use generic::Instance;
pub mod host;
pub use tessel_ir::legality;
pub mod lower;
pub mod module;
pub mod ptx;
pub mod sync;
pub mod syntax;
pub mod typeck;
pub use tessel_ir::types;

use proc_macro2::TokenStream;
use std::rc::Rc;

/// The kernel functions of a `#[kernels]` module, shared by its kernels.
type Functions = Rc<syntax::function::Functions>;

/// A kernel that passed checking, with what checking learned.
pub struct Compiled {
    pub kernel: syntax::ast::Kernel,
    pub facts: typeck::Facts,
}

impl Compiled {
    /// The kernel's program, as the macro embeds it (errors are internal ones).
    pub fn program(&self) -> Result<tessel_ir::Program, syn::Error> {
        lower::lower(&self.kernel, &self.facts)
    }

    /// The kernel's PTX module, as the macro emits it (errors are internal ones).
    pub fn ptx(&self) -> Result<String, syn::Error> {
        ptx::emit(&self.program()?, self.kernel.name.span())
    }
}

/// Runs the front end: reads and checks a kernel, with every error of the kernel in one `syn::Error`.
/// A generic kernel's instances are all checked; the first is returned (`compile_instances` has
/// them all).
pub fn compile(attr: TokenStream, item: TokenStream) -> Result<Compiled, syn::Error> {
    compile_with(None, attr, item)
}

/// [`compile`] for a kernel of a `#[kernels]` module, which may call the module's `functions`.
fn compile_with(functions: Option<&Functions>, attr: TokenStream, item: TokenStream) -> Result<Compiled, syn::Error> {
    let item = syntax::parse_fn(item)?;
    if generic::applies(&attr, &item.func) {
        return generic::compile_first(functions, attr, &item);
    }
    let front = front_end(functions, attr, &item);
    match front.errors {
        Some(errors) => Err(errors),
        None => Ok(Compiled { kernel: front.kernel, facts: front.facts }),
    }
}

/// Runs the front end of every instance of a kernel (`compile`): a generic kernel's, in the order
/// of `instances(..)`, or a plain kernel as its only instance.
pub fn compile_instances(attr: TokenStream, item: TokenStream) -> Result<Vec<Instance>, syn::Error> {
    generic::compile_instances(attr, syntax::parse_fn(item)?)
}

/// What `#[kernel]` expands to: the kernel's module, or its errors and a fallback module with the
/// same items, so that uses of the kernel add no errors of their own. A generic kernel expands to
/// a generic struct over its instances (`generic`).
pub fn expand(attr: TokenStream, item: TokenStream) -> TokenStream {
    expand_with(None, attr, item)
}

/// [`expand`] for a kernel of a `#[kernels]` module, which may call the module's `functions`.
fn expand_with(functions: Option<&Functions>, attr: TokenStream, item: TokenStream) -> TokenStream {
    let item = match syntax::parse_fn(item) {
        Ok(item) => item,
        Err(errors) => return errors.to_compile_error(),
    };
    if generic::applies(&attr, &item.func) {
        return generic::expand(functions, attr, item);
    }
    let input = host::Input { attr, item };
    let front = front_end(functions, input.attr.clone(), &input.item);
    let expanded = match front.errors {
        Some(errors) => Err(errors),
        None => back_end(&front.kernel, &front.facts, &input),
    };
    expanded.unwrap_or_else(|errors| {
        let mut out = errors.to_compile_error();
        out.extend(host::fallback(&front.kernel, &front.facts, &input));
        out
    })
}

/// The front end's output, kept even when it failed: the fallback uses whatever was read.
struct FrontEnd {
    kernel: syntax::ast::Kernel,
    facts: typeck::Facts,
    errors: Option<syn::Error>,
}

fn front_end(functions: Option<&Functions>, attr: TokenStream, item: &syntax::Item) -> FrontEnd {
    let ctx = context(functions);
    let kernel = syntax::parse(&ctx, attr, item);
    let facts = check(&ctx, &kernel);
    FrontEnd { kernel, facts, errors: ctx.finish().err() }
}

/// Checks a kernel that was read: `typeck`, then, when it passed, the synchronization of its
/// program (`sync`), whose errors join the kernel's.
fn check(ctx: &diag::Ctxt, kernel: &syntax::ast::Kernel) -> typeck::Facts {
    let facts = typeck::check(ctx, kernel);
    if !ctx.has_errors() {
        sync::check(ctx, kernel, &facts);
    }
    facts
}

/// A fresh diagnostic context; a kernel of a `#[kernels]` module may call the module's functions.
fn context(functions: Option<&Functions>) -> diag::Ctxt {
    let ctx = diag::Ctxt::new();
    if let Some(functions) = functions {
        ctx.calls.set_functions(functions.clone());
    }
    ctx
}

/// The back ends of a checked kernel: its program, its PTX and the host items around them (the
/// encoded program among them), with the errors of the last two. Lowering and the PTX writer cannot
/// fail on a checked kernel, so their errors are internal ones.
fn back_end(
    kernel: &syntax::ast::Kernel,
    facts: &typeck::Facts,
    input: &host::Input,
) -> Result<TokenStream, syn::Error> {
    let program = lower::lower(kernel, facts)?;
    let ptx = ptx::emit(&program, kernel.name.span());
    // The host items are made even when the PTX writer failed, so that their own errors are
    // reported too.
    let items = host::expand(kernel, &program, ptx.as_deref().unwrap_or_default(), input);
    let (_, items) = both(ptx, items)?;
    Ok(items)
}

/// Both values, or every error of either.
fn both<A, B>(a: Result<A, syn::Error>, b: Result<B, syn::Error>) -> Result<(A, B), syn::Error> {
    match (a, b) {
        (Ok(a), Ok(b)) => Ok((a, b)),
        (Err(mut errors), Err(more)) => {
            errors.combine(more);
            Err(errors)
        }
        (Err(errors), Ok(_)) | (Ok(_), Err(errors)) => Err(errors),
    }
}
