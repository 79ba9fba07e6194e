//! `#[kernel]`: tessel's attribute macro, a thin face over `tessel_compiler::expand`.

use proc_macro::TokenStream;

/// Compiles a tile-level kernel for NVIDIA Hopper GPUs: checks it and expands to a module of the
/// kernel's name. See the `tessel` crate documentation for the language.
#[proc_macro_attribute]
pub fn kernel(attr: TokenStream, item: TokenStream) -> TokenStream {
    tessel_compiler::expand(attr.into(), item.into()).into()
}
