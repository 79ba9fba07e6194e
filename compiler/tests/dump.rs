//! Prints the PTX of a kernel file: `DUMP=path/to/kernel.rs cargo test -p tessel-compiler --test dump -- --nocapture`.
//! The kernels of `#[kernels]` modules are compiled with their modules.

#[test]
fn dump() {
    let Ok(path) = std::env::var("DUMP") else { return };
    let src = std::fs::read_to_string(&path).unwrap();
    let file: syn::File = syn::parse_str(&src).unwrap();
    for item in file.items {
        let compiled = match item {
            syn::Item::Fn(mut f) => {
                let Some(pos) = f.attrs.iter().position(|a| a.path().is_ident("kernel")) else { continue };
                let attr = f.attrs.remove(pos);
                let args = match attr.meta {
                    syn::Meta::List(l) => l.tokens,
                    _ => Default::default(),
                };
                tessel_compiler::compile(args, quote::quote!(#f)).map(|c| vec![c])
            }
            syn::Item::Mod(mut m) => {
                let Some(pos) = m.attrs.iter().position(|a| a.path().is_ident("kernels")) else { continue };
                m.attrs.remove(pos);
                tessel_compiler::module::compile(Default::default(), quote::quote!(#m))
            }
            _ => continue,
        };
        match compiled {
            Ok(kernels) => {
                for c in kernels {
                    let ptx = c.ptx().unwrap();
                    let out = format!("/tmp/ptx/{}.ptx", c.kernel.name);
                    std::fs::create_dir_all("/tmp/ptx").unwrap();
                    std::fs::write(&out, ptx).unwrap();
                    println!("wrote {out}");
                }
            }
            Err(e) => println!("rejected: {e}"),
        }
    }
}
