//! Writes the PTX of every kernel of a Rust file to /tmp/ptx/:
//! `cargo run -p tessel-compiler --example dump_ptx -- path/to/kernel.rs`.
//! Every instance of a generic kernel (`matmul::<bf16, 256>` as `matmul-bf16-256.ptx`) and every
//! kernel of a `#[kernels]` module. A development tool (it was a test that passed doing nothing
//! without its environment variable).

fn main() {
    let Some(path) = std::env::args().nth(1) else {
        eprintln!("usage: cargo run -p tessel-compiler --example dump_ptx -- path/to/kernel.rs");
        std::process::exit(2);
    };
    let src = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{path}: {e}"));
    let file: syn::File = syn::parse_str(&src).unwrap_or_else(|e| panic!("{path}: {e}"));
    for item in file.items {
        let compiled = match item {
            syn::Item::Fn(mut f) => {
                let Some(pos) = f.attrs.iter().position(|a| a.path().is_ident("kernel")) else { continue };
                let attr = f.attrs.remove(pos);
                let args = match attr.meta {
                    syn::Meta::List(l) => l.tokens,
                    _ => Default::default(),
                };
                tessel_compiler::compile_instances(args, quote::quote!(#f))
                    .map(|instances| instances.into_iter().map(|i| (i.name, i.compiled)).collect::<Vec<_>>())
            }
            syn::Item::Mod(mut m) => {
                let Some(pos) = m.attrs.iter().position(|a| a.path().is_ident("kernels")) else { continue };
                m.attrs.remove(pos);
                tessel_compiler::module::compile(Default::default(), quote::quote!(#m))
                    .map(|kernels| kernels.into_iter().map(|c| (c.kernel.name.to_string(), c)).collect())
            }
            _ => continue,
        };
        match compiled {
            Ok(kernels) => {
                for (name, c) in kernels {
                    let ptx = c.ptx().unwrap();
                    let name: Vec<&str> = name.split(|c: char| !c.is_alphanumeric() && c != '_').collect();
                    let name: Vec<&str> = name.into_iter().filter(|s| !s.is_empty()).collect();
                    let out = format!("/tmp/ptx/{}.ptx", name.join("-"));
                    std::fs::create_dir_all("/tmp/ptx").unwrap();
                    std::fs::write(&out, ptx).unwrap();
                    println!("wrote {out}");
                }
            }
            Err(e) => println!("rejected: {e}"),
        }
    }
}
