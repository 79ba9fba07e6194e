//! The tessel compiler: reads a `#[kernel]` function, checks it, and generates what the macro emits.
//!
//! Stages are modules named after what they produce; data flows one way:
//! `syntax` (tokens -> `ast`) -> `typeck` (types, layouts, the error catalog) -> `host` (the items the
//! macro expands to). The legality tables live in `legality`, shared by every stage.

pub mod diag;
pub mod host;
pub mod legality;
pub mod syntax;
pub mod typeck;
pub mod types;

use proc_macro2::TokenStream;

/// A kernel that passed checking, with what checking learned.
pub struct Compiled {
    pub kernel: syntax::ast::Kernel,
    pub facts: typeck::Facts,
}

/// Runs the front end: reads and checks a kernel, with every error of the kernel in one `syn::Error`.
pub fn compile(attr: TokenStream, item: TokenStream) -> Result<Compiled, syn::Error> {
    let ctx = diag::Ctxt::new();
    let kernel = syntax::parse(&ctx, attr, item);
    let facts = kernel.as_ref().map(|k| typeck::check(&ctx, k));
    ctx.finish()?;
    match (kernel, facts) {
        (Some(kernel), Some(facts)) => Ok(Compiled { kernel, facts }),
        _ => Err(syn::Error::new(
            proc_macro2::Span::call_site(),
            "internal tessel error: a kernel that could not be read reported no error",
        )),
    }
}

/// What `#[kernel]` expands to: the kernel's module, or its errors and a fallback module.
pub fn expand(attr: TokenStream, item: TokenStream) -> TokenStream {
    match compile(attr, item.clone()) {
        Ok(c) => host::expand(&c.kernel, &c.facts),
        Err(e) => {
            let mut out = e.to_compile_error();
            out.extend(host::fallback(None, &item));
            out
        }
    }
}
