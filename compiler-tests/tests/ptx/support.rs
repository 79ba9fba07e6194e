//! Shared by the PTX tests (`tests/ptx/main.rs`, golden files) and `tests/ptxas.rs` (assembly):
//! finding `#[kernel]` functions in source files (also those of `#[kernels]` modules), compiling
//! them to PTX, and running `ptxas`. A generic kernel is one `KernelSource` per instance of its
//! `instances(..)`, named like the instance (`matmul::<bf16, 256>`), so that every instance's PTX is
//! compiled and assembled.

#![allow(dead_code)]

use std::path::{Path, PathBuf};

// Finding and running ptxas: std only, so that `tessel-kernels`' tests share it.
#[path = "ptxas_tool.rs"]
mod ptxas_tool;
pub use ptxas_tool::*;

/// A `#[kernel(..)]` function read from a file, or one instance of a generic one.
pub struct KernelSource {
    pub file: PathBuf,
    /// The function's name, or the instance's (`matmul::<bf16, 256>`).
    pub name: String,
    attr: proc_macro2::TokenStream,
    item: proc_macro2::TokenStream,
    /// For a kernel of a `#[kernels]` module: the module (without the attribute), whose kernel
    /// functions the kernel calls, and with which it is compiled (`attr` is then the module's
    /// attribute, with its libraries loaded).
    module: Option<proc_macro2::TokenStream>,
    /// Which instance (`tessel_compiler::compile_instances`); 0 for a plain kernel.
    instance: usize,
}

impl KernelSource {
    /// `file.rs::name`, for messages.
    pub fn label(&self) -> String {
        format!("{}::{}", self.file.display(), self.name)
    }

    /// The checked kernel (instance), or the front end's errors as text.
    pub fn compiled(&self) -> Result<tessel_compiler::Compiled, String> {
        if let Some(module) = &self.module {
            let kernels =
                tessel_compiler::module::compile(self.attr.clone(), module.clone()).map_err(|e| render(&e))?;
            let kernel = kernels.into_iter().find(|c| c.kernel.name == self.name);
            return kernel.ok_or_else(|| format!("the module has no kernel `{}`", self.name));
        }
        let instances =
            tessel_compiler::compile_instances(self.attr.clone(), self.item.clone()).map_err(|e| render(&e))?;
        let count = instances.len();
        let instance = instances.into_iter().nth(self.instance);
        instance.map(|i| i.compiled).ok_or_else(|| format!("instance {} of {count} is missing", self.instance))
    }

    /// The kernel's PTX, or the front end's or writer's errors as text.
    pub fn ptx(&self) -> Result<String, String> {
        let compiled = self.compiled()?;
        compiled.ptx().map_err(|e| render(&e))
    }
}

fn render(e: &syn::Error) -> String {
    e.clone().into_iter().map(|e| e.to_string()).collect::<Vec<_>>().join("; ")
}

/// The root of this test package (`compiler-tests/`), which the directories below are relative to.
pub fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

/// The facade's examples (`examples/` of the repository), whose kernels are checked like the cases'.
pub const EXAMPLES: &str = "../examples";

/// The `.rs` files of a directory (relative to [`root`]), sorted. A directory that cannot be read
/// is a failure, not an empty list: a moved directory must not silently drop its kernels.
pub fn rust_files(dir: &str) -> Vec<PathBuf> {
    let path = root().join(dir);
    let entries = std::fs::read_dir(&path).unwrap_or_else(|e| panic!("cannot read {}: {e}", path.display()));
    let mut files: Vec<PathBuf> =
        entries.filter_map(|e| e.ok().map(|e| e.path())).filter(|p| p.extension().is_some_and(|x| x == "rs")).collect();
    files.sort();
    files
}

/// Every `#[kernel(..)]` function of a file, in order (as `compiler/examples/dump_ptx.rs` reads them).
pub fn kernels_in(path: &Path) -> Vec<KernelSource> {
    let src = std::fs::read_to_string(path).unwrap_or_else(|e| panic!("cannot read {}: {e}", path.display()));
    kernels_in_source(&src, path)
}

/// Every `#[kernel(..)]` function of a source text (`path` names it in messages).
pub fn kernels_in_source(src: &str, path: &Path) -> Vec<KernelSource> {
    let file: syn::File = syn::parse_str(src).unwrap_or_else(|e| panic!("{} does not parse: {e}", path.display()));
    let libraries = libraries_in(&file);
    let mut out = Vec::new();
    for item in file.items {
        match item {
            syn::Item::Fn(f) => out.extend(function_kernels(f, path)),
            syn::Item::Mod(mut m) => {
                let Some(pos) = m.attrs.iter().position(|a| a.path().is_ident("kernels")) else { continue };
                let attr = match m.attrs.remove(pos).meta {
                    syn::Meta::List(l) => l.tokens,
                    _ => Default::default(),
                };
                // The libraries of its `uses(..)`, loaded from the file as their macros load them.
                let library = |p: &syn::Path| {
                    let name = p.segments.last()?.ident.to_string();
                    libraries.iter().find(|(n, _)| *n == name).map(|(_, item)| item.clone())
                };
                let attr = tessel_compiler::module::load(attr, library)
                    .unwrap_or_else(|e| panic!("{}: `{}`: {e}", path.display(), m.ident));
                out.extend(module_kernels(&m).into_iter().map(|name| KernelSource {
                    file: path.to_path_buf(),
                    name,
                    attr: attr.clone(),
                    item: Default::default(),
                    module: Some(quote::quote!(#m)),
                    instance: 0,
                }));
            }
            _ => {}
        }
    }
    out
}

/// The `#[kernel_fns]` libraries of a file: each one's name and its module without the attribute.
fn libraries_in(file: &syn::File) -> Vec<(String, proc_macro2::TokenStream)> {
    let mut out = Vec::new();
    for item in &file.items {
        let syn::Item::Mod(m) = item else { continue };
        if m.attrs.iter().any(|a| a.path().is_ident("kernel_fns")) {
            let mut m = m.clone();
            m.attrs.retain(|a| !a.path().is_ident("kernel_fns"));
            out.push((m.ident.to_string(), quote::quote!(#m)));
        }
    }
    out
}

/// The names of the `#[kernel(..)]` functions of a module, in order.
fn module_kernels(m: &syn::ItemMod) -> Vec<String> {
    let items = m.content.as_ref().map_or(&[][..], |(_, items)| items.as_slice());
    items
        .iter()
        .filter_map(|item| match item {
            syn::Item::Fn(f) if f.attrs.iter().any(|a| a.path().is_ident("kernel")) => Some(f.sig.ident.to_string()),
            _ => None,
        })
        .collect()
}

/// The kernel of a `#[kernel]` function: one source, or one per instance of a generic kernel (a
/// rejected one is one source, whose `compiled` reports the errors).
fn function_kernels(mut f: syn::ItemFn, path: &Path) -> Vec<KernelSource> {
    let Some(pos) = f.attrs.iter().position(|a| a.path().is_ident("kernel")) else { return Vec::new() };
    let attr = f.attrs.remove(pos);
    let attr: proc_macro2::TokenStream = match attr.meta {
        syn::Meta::List(l) => l.tokens,
        _ => Default::default(),
    };
    let item = quote::quote!(#f);
    let instances = match f.sig.generics.params.is_empty() {
        true => None,
        false => tessel_compiler::compile_instances(attr.clone(), item.clone()).ok(),
    };
    let names = match instances {
        Some(instances) => instances.into_iter().map(|i| i.name).collect(),
        None => vec![f.sig.ident.to_string()],
    };
    let source = |(instance, name)| KernelSource {
        file: path.to_path_buf(),
        name,
        attr: attr.clone(),
        item: item.clone(),
        module: None,
        instance,
    };
    names.into_iter().enumerate().map(source).collect()
}
