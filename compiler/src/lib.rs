//! The tessel compiler: reads a `#[kernel]` function, checks it, and generates what the macro emits.
//!
//! Stages are modules named after what they produce; data flows one way:
//! `syntax` (tokens -> `ast`) -> `typeck` (types, layouts, the error catalog) -> `host` (the items the
//! macro expands to). The legality tables live in `legality`, shared by every stage.

pub mod diag;
pub mod host;
pub mod legality;
pub mod ptx;
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
    match front_end(attr, item) {
        FrontEnd { errors: Some(errors), .. } => Err(errors),
        FrontEnd { kernel: Some(kernel), facts: Some(facts), .. } => Ok(Compiled { kernel, facts }),
        FrontEnd { .. } => Err(unread()),
    }
}

/// What `#[kernel]` expands to: the kernel's module, or its errors and a fallback module with the
/// same items, so that uses of the kernel add no errors of their own.
pub fn expand(attr: TokenStream, item: TokenStream) -> TokenStream {
    let input = host::Input { attr, item };
    let front = front_end(input.attr.clone(), input.item.clone());
    let expanded = match (&front.kernel, &front.facts, front.errors) {
        (_, _, Some(errors)) => Err(errors),
        (Some(kernel), Some(facts), None) => back_end(kernel, facts, &input),
        _ => Err(unread()),
    };
    expanded.unwrap_or_else(|errors| {
        let mut out = errors.to_compile_error();
        out.extend(host::fallback(front.kernel.as_ref(), front.facts.as_ref(), &input));
        out
    })
}

/// The front end's output, kept even when it failed: the fallback uses whatever was read.
struct FrontEnd {
    kernel: Option<syntax::ast::Kernel>,
    facts: Option<typeck::Facts>,
    errors: Option<syn::Error>,
}

fn front_end(attr: TokenStream, item: TokenStream) -> FrontEnd {
    let ctx = diag::Ctxt::new();
    let kernel = syntax::parse(&ctx, attr, item);
    let facts = kernel.as_ref().map(|k| typeck::check(&ctx, k));
    FrontEnd { kernel, facts, errors: ctx.finish().err() }
}

/// The back ends of a checked kernel: its PTX and the host items around it, with the errors of
/// both. The PTX writer cannot fail on a checked kernel, so its errors are internal ones.
fn back_end(
    kernel: &syntax::ast::Kernel,
    facts: &typeck::Facts,
    input: &host::Input,
) -> Result<TokenStream, syn::Error> {
    let ptx = ptx::emit(kernel, facts);
    let items = host::expand(kernel, facts, ptx.as_deref().unwrap_or_default(), input);
    match (ptx, items) {
        (Ok(_), Ok(items)) => Ok(items),
        (Err(mut errors), Err(more)) => {
            errors.combine(more);
            Err(errors)
        }
        (Err(errors), Ok(_)) | (Ok(_), Err(errors)) => Err(errors),
    }
}

fn unread() -> syn::Error {
    syn::Error::new(
        proc_macro2::Span::call_site(),
        "internal tessel error: a kernel that could not be read reported no error",
    )
}
