//! Shared by the PTX tests (`tests/ptx/main.rs`, golden files) and `tests/ptxas.rs` (assembly):
//! finding `#[kernel]` functions in source files (also those of `#[kernels]` modules), compiling
//! them to PTX, and running `ptxas`. A generic kernel is one `KernelSource` per instance of its
//! `instances(..)`, named like the instance (`matmul::<bf16, 256>`), so that every instance's PTX is
//! compiled and assembled.

#![allow(dead_code)]

use std::path::{Path, PathBuf};
use std::process::Command;

/// A `#[kernel(..)]` function read from a file, or one instance of a generic one.
pub struct KernelSource {
    pub file: PathBuf,
    /// The function's name, or the instance's (`matmul::<bf16, 256>`).
    pub name: String,
    attr: proc_macro2::TokenStream,
    item: proc_macro2::TokenStream,
    /// For a kernel of a `#[kernels]` module: the module (without the attribute), whose kernel
    /// functions the kernel calls, and with which it is compiled.
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
                tessel_compiler::module::compile(Default::default(), module.clone()).map_err(|e| render(&e))?;
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
    let mut out = Vec::new();
    for item in file.items {
        match item {
            syn::Item::Fn(f) => out.extend(function_kernels(f, path)),
            syn::Item::Mod(mut m) => {
                let Some(pos) = m.attrs.iter().position(|a| a.path().is_ident("kernels")) else { continue };
                m.attrs.remove(pos);
                out.extend(module_kernels(&m).into_iter().map(|name| KernelSource {
                    file: path.to_path_buf(),
                    name,
                    attr: Default::default(),
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

/// The ptxas wheel CI installs (it needs no CUDA installation), for the messages.
pub const PTXAS_WHEEL: &str = "nvidia-cuda-nvcc-cu12==12.9.86";

/// `ptxas`: `TESSEL_PTXAS` if set, else the first `ptxas` on `PATH`, else the one of the
/// `nvidia-cuda-nvcc-cu12` wheel if `python3` can import it, else a CUDA installation's
/// (`CUDA_HOME`, `CUDA_PATH`, `/usr/local/cuda`).
pub fn find_ptxas() -> Option<PathBuf> {
    if let Some(p) = std::env::var_os("TESSEL_PTXAS") {
        return Some(PathBuf::from(p));
    }
    let on_path = std::env::var_os("PATH")
        .and_then(|path| std::env::split_paths(&path).map(|d| d.join("ptxas")).find(|p| p.is_file()));
    let cuda = || {
        let homes = ["CUDA_HOME", "CUDA_PATH"].into_iter().filter_map(std::env::var_os).map(PathBuf::from);
        homes.chain([PathBuf::from("/usr/local/cuda")]).map(|h| h.join("bin/ptxas")).find(|p| p.is_file())
    };
    on_path.or_else(wheel_ptxas).or_else(cuda)
}

/// The `ptxas` of the `nvidia-cuda-nvcc-cu12` wheel, if `python3` has it installed.
fn wheel_ptxas() -> Option<PathBuf> {
    let script = "import os, nvidia.cuda_nvcc as n; print(os.path.join(list(n.__path__)[0], 'bin', 'ptxas'))";
    let out = std::process::Command::new("python3").args(["-c", script]).output().ok()?;
    let path = PathBuf::from(String::from_utf8(out.stdout).ok()?.trim());
    (out.status.success() && path.is_file()).then_some(path)
}

/// `ptxas` for a test that assembles PTX (`what` it checks). Without one the test fails with a
/// message saying how to get it, since a pass would say that PTX was checked when nothing was;
/// `TESSEL_SKIP_PTXAS=1` makes it pass after saying loudly that it skipped (`None`), unless
/// `TESSEL_REQUIRE_PTXAS=1` (CI) insists.
pub fn ptxas_or_skip(what: &str) -> Option<PathBuf> {
    if let Some(ptxas) = find_ptxas() {
        return Some(ptxas);
    }
    let flag = |name: &str| std::env::var(name).is_ok_and(|v| v == "1");
    if flag("TESSEL_SKIP_PTXAS") && !flag("TESSEL_REQUIRE_PTXAS") {
        eprintln!("\n!!!!! SKIPPED ({what}): no ptxas, and TESSEL_SKIP_PTXAS=1 !!!!!\n");
        return None;
    }
    panic!(
        "no ptxas: this test checks {what} with `ptxas -arch=sm_90a`, and cannot check anything without it.\n\
         Install it (no CUDA installation or GPU needed): `python3 -m pip install {PTXAS_WHEEL}`, which this \
         test finds by itself; or set TESSEL_PTXAS=/path/to/ptxas, or put a CUDA 12 ptxas on PATH.\n\
         To run the other tests without it: `TESSEL_SKIP_PTXAS=1 cargo test`{}.",
        if flag("TESSEL_REQUIRE_PTXAS") { " (not with TESSEL_REQUIRE_PTXAS=1, as CI sets)" } else { "" }
    )
}

/// Assembles `ptx` for sm_90a. `Ok(log)` when ptxas exits 0 and reports no wgmma serialization
/// (`C75xx`, checked on the H200) and no warning; otherwise `Err` with what it said.
pub fn assemble(ptxas: &Path, tag: &str, ptx: &str) -> Result<String, String> {
    run_ptxas(ptxas, tag, ptx, false)
}

/// [`assemble`] with `-v`, and an `Err` if ptxas spilled registers to local memory: its log
/// (registers, stack, spills) on success.
pub fn assemble_without_spills(ptxas: &Path, tag: &str, ptx: &str) -> Result<String, String> {
    let log = run_ptxas(ptxas, tag, ptx, true)?;
    // `-v` prints, per function, "N bytes stack frame, N bytes spill stores, N bytes spill loads".
    let spill_stores = |line: &str| {
        let before = line.split(" bytes spill stores").next().filter(|_| line.contains(" bytes spill stores"))?;
        before.rsplit([' ', ',']).next()?.parse::<u64>().ok()
    };
    let counts: Vec<u64> = log.lines().filter_map(spill_stores).collect();
    match counts.iter().sum::<u64>() {
        // A log without the line would pass by saying nothing: that is an error too.
        _ if counts.is_empty() => Err(format!("ptxas -v printed no spill counts for {tag}:\n{log}")),
        0 => Ok(log),
        bytes => Err(format!("ptxas spilled {bytes} bytes of registers in {tag}:\n{log}")),
    }
}

fn run_ptxas(ptxas: &Path, tag: &str, ptx: &str, verbose: bool) -> Result<String, String> {
    let dir = std::env::temp_dir().join(format!("tessel-ptxas-{}", std::process::id()));
    std::fs::create_dir_all(&dir).map_err(|e| e.to_string())?;
    let input = dir.join(format!("{tag}.ptx"));
    std::fs::write(&input, ptx).map_err(|e| e.to_string())?;
    let output = Command::new(ptxas)
        .arg("-arch=sm_90a")
        .args(verbose.then_some("-v"))
        .arg(&input)
        .arg("-o")
        .arg(dir.join(format!("{tag}.cubin")))
        .output()
        .map_err(|e| format!("cannot run {}: {e}", ptxas.display()))?;
    let log = format!("{}{}", String::from_utf8_lossy(&output.stdout), String::from_utf8_lossy(&output.stderr));
    if !output.status.success() {
        return Err(format!("ptxas failed ({}) on {}:\n{log}", output.status, input.display()));
    }
    if log.contains("C75") || log.to_lowercase().contains("warning") {
        return Err(format!("ptxas accepted {} with complaints:\n{log}", input.display()));
    }
    Ok(log)
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
