//! `#[kernel]`, `#[kernels]` and `#[kernel_fns]`: tessel's attribute macros, a thin face over `tessel_compiler`.

use proc_macro::TokenStream;

/// Compiles a tile-level kernel for NVIDIA Hopper GPUs: checks it and expands to a module of the
/// kernel's name. See the `tessel` crate documentation for the language.
#[proc_macro_attribute]
pub fn kernel(attr: TokenStream, item: TokenStream) -> TokenStream {
    tessel_compiler::expand(attr.into(), item.into()).into()
}

/// Compiles the `#[kernel]`s of a module together with the kernel functions (the module's plain
/// `fn`s) they call, which are inlined at each call. See "Kernel functions" in the `tessel` crate
/// documentation.
#[proc_macro_attribute]
pub fn kernels(attr: TokenStream, item: TokenStream) -> TokenStream {
    tessel_compiler::module::expand(attr.into(), item.into()).into()
}

/// Makes a module of kernel functions a library that `#[kernels]` modules of this crate and of
/// others use: `#[kernels(uses(split_k))]` calls its `pub fn`s. See "Kernel functions" in the
/// `tessel` crate documentation.
#[proc_macro_attribute]
pub fn kernel_fns(attr: TokenStream, item: TokenStream) -> TokenStream {
    tessel_compiler::module::library::expand(attr.into(), item.into()).into()
}
