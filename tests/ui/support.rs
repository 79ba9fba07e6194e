//! Reading the `#[kernel]` functions of the `tests/ui` cases so that tests can hand them to
//! `tessel_compiler` directly, the way rustc hands them to the macro: the attribute's tokens apart
//! from the function, which no longer carries the attribute.
//!
//! Shared by `tests/ui.rs`, `tests/mutation.rs` and `tests/compile_time.rs` (`#[path]` modules).

#![allow(dead_code)]

use proc_macro2::TokenStream;
use quote::ToTokens;
use std::path::{Path, PathBuf};

/// One `#[kernel(..)] fn` of a case file.
pub struct Kernel {
    /// The function's name, for messages.
    pub name: String,
    /// The tokens inside `#[kernel(..)]`.
    pub attr: TokenStream,
    /// The function without its `#[kernel]` attribute.
    pub item: TokenStream,
}

/// The root of the `tessel` package.
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
pub const FAIL_AREAS: &[&str] = &["alloc", "acc", "layout", "mma", "wgmma", "memory", "semaphore", "syntax"];

/// Every kernel of a file, in source order.
pub fn kernels_of(path: &Path) -> Vec<Kernel> {
    let src = std::fs::read_to_string(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    kernels_in(&src).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

/// Every kernel of a source text.
pub fn kernels_in(src: &str) -> Result<Vec<Kernel>, syn::Error> {
    let file = syn::parse_file(src)?;
    let mut out = Vec::new();
    for item in file.items {
        let syn::Item::Fn(mut f) = item else { continue };
        let Some(pos) = f.attrs.iter().position(|a| a.path().is_ident("kernel")) else { continue };
        let attr = f.attrs.remove(pos);
        let attr = match attr.meta {
            syn::Meta::List(list) => list.tokens,
            _ => TokenStream::new(),
        };
        out.push(Kernel { name: f.sig.ident.to_string(), attr, item: f.to_token_stream() });
    }
    Ok(out)
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
