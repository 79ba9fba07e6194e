//! Prints the PTX of a kernel file: `DUMP=path/to/kernel.rs cargo test -p tessel-compiler --test dump -- --nocapture`.

#[test]
fn dump() {
    let Ok(path) = std::env::var("DUMP") else { return };
    let src = std::fs::read_to_string(&path).unwrap();
    let file: syn::File = syn::parse_str(&src).unwrap();
    for item in file.items {
        if let syn::Item::Fn(mut f) = item {
            let Some(pos) = f.attrs.iter().position(|a| a.path().is_ident("kernel")) else { continue };
            let attr = f.attrs.remove(pos);
            let args = match attr.meta {
                syn::Meta::List(l) => l.tokens,
                _ => Default::default(),
            };
            let item = quote::quote!(#f);
            match tessel_compiler::compile(args, item) {
                Ok(c) => {
                    let ptx = c.ptx().unwrap();
                    let out = format!("/tmp/ptx/{}.ptx", c.kernel.name);
                    std::fs::create_dir_all("/tmp/ptx").unwrap();
                    std::fs::write(&out, ptx).unwrap();
                    println!("wrote {out}");
                }
                Err(e) => println!("rejected: {e}"),
            }
        }
    }
}
