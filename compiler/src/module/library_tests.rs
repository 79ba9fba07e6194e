//! Libraries of kernel functions (`#[kernel_fns]`) and the modules that use them
//! (`#[kernels(uses(..))]`): the library's expansion, the chain that loads it, and a module's
//! calls of its functions, their scopes and their errors.

use proc_macro2::TokenStream;
use quote::quote;

/// A library: a generic tile order that calls a private function, and an epilogue.
fn tiles() -> TokenStream {
    quote! {
        pub mod tiles {
            use tessel::prelude::*;

            /// The tile of step `u`, GROUP tile-rows at a time.
            pub fn grouped<const GROUP: usize>(u: i32, tiles_m: i32, tiles_n: i32) -> (i32, i32) {
                let first = u / (GROUP * tiles_n) * GROUP;
                let rows = min(tiles_m - first, GROUP);
                (first + offset(u, GROUP * tiles_n) % rows, offset(u, GROUP * tiles_n) / rows)
            }

            fn offset(u: i32, span: i32) -> i32 {
                u % span
            }

            pub fn store_tile(acc: Acc<f32, 64, 64>, c: GmemMut<f32, M, N>, i: i32, j: i32) {
                c.tile([i, j]).store(acc.load());
            }
        }
    }
}

/// `attr` with the libraries of its `uses(..)` loaded from `libraries` (by their last segment), as
/// their macros load them.
fn loaded(attr: TokenStream, libraries: &[TokenStream]) -> TokenStream {
    let find = |path: &syn::Path| {
        let name = path.segments.last()?.ident.to_string();
        libraries.iter().find(|l| syn::parse2::<syn::ItemMod>((*l).clone()).is_ok_and(|m| m.ident == name)).cloned()
    };
    super::load(attr, find).unwrap_or_else(|e| panic!("{e}"))
}

/// The first line of each error of a module that uses `libraries`.
fn errors(attr: TokenStream, libraries: &[TokenStream], item: TokenStream) -> Vec<String> {
    match super::compile(loaded(attr, libraries), item) {
        Ok(_) => Vec::new(),
        Err(e) => e.into_iter().map(|e| e.to_string().lines().next().unwrap_or_default().to_string()).collect(),
    }
}

/// A module whose kernel calls `call` (a statement) with `i`, `j` and an accumulator in scope.
fn module_calling(call: TokenStream) -> TokenStream {
    quote! {
        mod gemm {
            use tessel::prelude::*;

            #[kernel(grid = (M / 64 * (N / 64)))]
            pub fn tile(c: GmemMut<f32, M, N>) {
                let (i, j) = (program_id(0) / (N / 64), program_id(0) % (N / 64));
                run_scoped(|acc: Acc<f32, 64, 64>| {
                    acc.store(splat::<f32>(1.0, [64, 64]).to_layout(Layout::Wgmma));
                    #call;
                });
            }
        }
    }
}

#[test]
fn a_library_expands_to_its_module_and_a_macro_that_carries_its_functions() {
    let out = super::library::expand(TokenStream::new(), tiles()).to_string();
    assert!(!out.contains("compile_error"), "{out}");
    assert!(out.contains("# [macro_export] macro_rules ! __tessel_kernel_fns_tiles_"), "{out}");
    assert!(out.contains("as tessel_kernel_fns ;"), "{out}");
    // The macro hands the module back to `#[kernels]` with the functions, without their docs.
    assert!(out.contains("# [:: tessel :: kernels ($ ($ state) * mod tiles { pub fn grouped"), "{out}");
    // The functions are no Rust items: their signatures and docs are the module's (public ones).
    let file: syn::File = syn::parse2(super::library::expand(TokenStream::new(), tiles())).expect("parses");
    let syn::Item::Mod(m) = &file.items[0] else { panic!("{out}") };
    let docs: String = m.attrs.iter().map(|a| quote!(#a).to_string()).collect();
    let signature = "pub fn grouped<const GROUP: usize>(u: i32, tiles_m: i32, tiles_n: i32) -> (i32, i32)";
    assert!(docs.contains(signature) && docs.contains("GROUP tile-rows at a time"), "{docs}");
    let signature = "pub fn store_tile(acc: Acc<f32, 64, 64>, c: GmemMut<f32, M, N>, i: i32, j: i32)";
    assert!(docs.contains(signature) && !docs.contains("fn offset"), "{docs}");
    let macro_body = out.split("macro_rules !").nth(1).unwrap_or_default();
    assert!(!macro_body.contains("GROUP tile-rows at a time"), "{out}");
    let file: syn::File = syn::parse2(super::library::expand(TokenStream::new(), tiles())).expect("parses");
    assert!(matches!(&file.items[0], syn::Item::Mod(m) if m.ident == "tiles"));
    // A raw name makes a macro name too.
    let raw = super::library::expand(
        TokenStream::new(),
        quote!(
            mod r#loop {
                pub fn one() -> i32 {
                    1
                }
            }
        ),
    )
    .to_string();
    assert!(raw.contains("macro_rules ! __tessel_kernel_fns_loop_") && !raw.contains("compile_error"), "{raw}");
}

#[test]
fn a_library_reports_its_own_errors() {
    let check = |item: TokenStream| super::library::check(TokenStream::new(), item).err().map(|e| e.to_string());
    assert_eq!(check(tiles()), None);
    let recursive = quote! {
        mod sums {
            pub fn sum_to(n: i32) -> i32 { if n == 0 { 0 } else { n + sum_to(n - 1) } }
        }
    };
    assert!(check(recursive).is_some_and(|e| e.starts_with("[T0104] `sum_to` calls itself")));
    let kernel = quote! {
        mod tiles {
            #[kernel(grid = (1))]
            pub fn k(y: GmemMut<f32, 128>) {}
            struct S;
        }
    };
    let errors: Vec<String> = super::library::check(TokenStream::new(), kernel)
        .err()
        .map(|e| e.into_iter().map(|e| e.to_string().lines().next().unwrap_or_default().to_string()).collect())
        .unwrap_or_default();
    assert_eq!(
        errors,
        [
            "[T0124] a #[kernel_fns] library holds kernel functions (`fn`s) and `use` items",
            "[T0124] a #[kernel_fns] library holds kernel functions, not kernels"
        ]
    );
}

#[test]
fn uses_calls_each_librarys_macro_in_turn() {
    let out = super::expand(
        quote!(uses(tiles, crate::more)),
        quote!(
            mod gemm {}
        ),
    )
    .to_string();
    assert_eq!(out, "tiles :: tessel_kernel_fns ! { [uses (crate :: more) __library tiles] mod gemm { } }");
    // The second step: `tiles` loaded by its macro, `crate::more` next.
    let attr = quote!(uses(crate::more) __library tiles mod tiles { pub fn f() -> i32 { 1 } });
    let out = super::expand(
        attr,
        quote!(
            mod gemm {}
        ),
    )
    .to_string();
    assert!(out.starts_with("crate :: more :: tessel_kernel_fns ! { [uses () __library tiles mod tiles {"), "{out}");
    assert!(out.ends_with("__library crate :: more] mod gemm { } }"), "{out}");
}

#[test]
fn a_module_calls_its_librarys_public_functions() {
    let call = quote!(let (a, b) = grouped::<2>(i, M / 64, N / 64); store_tile(acc, c, a, b));
    let attr = loaded(quote!(uses(tiles)), &[tiles()]);
    let compiled = super::compile(attr.clone(), module_calling(call.clone())).unwrap_or_else(|e| panic!("{e}"));
    let ptx = compiled[0].ptx().unwrap_or_else(|e| panic!("{e}"));
    assert!(ptx.contains("rem.s32"), "the private `offset` is inlined: {ptx}");
    assert!(!super::expand(attr, module_calling(call)).to_string().contains("compile_error"));
}

#[test]
fn a_librarys_private_functions_are_its_own() {
    let private = errors(quote!(uses(tiles)), &[tiles()], module_calling(quote!(let _x = offset(i, 2))));
    assert_eq!(private, ["[T0127] `offset` is a private function of the kernel-function library `tiles`"]);
    // The module may have a function of that name; the library's calls still reach its own.
    let own = quote! {
        mod gemm {
            use tessel::prelude::*;

            fn offset(a: i32, b: i32) -> i32 { a * 1000 + b }

            #[kernel(grid = (M / 64 * (N / 64)))]
            pub fn mark(y: GmemMut<f32, M, N>) {
                let (i, j) = grouped::<2>(program_id(0), M / 64, N / 64);
                y.tile([i, j], [64, 64]).store(splat::<f32>(offset(i, j) as f32, [64, 64]).to_layout(Layout::Wgmma));
            }
        }
    };
    assert_eq!(errors(quote!(uses(tiles)), &[tiles()], own), Vec::<String>::new());
}

#[test]
fn names_that_two_sources_define_clash() {
    let local = quote! {
        mod gemm {
            fn store_tile(x: i32) -> i32 { x }
            #[kernel(grid = (1))]
            pub fn grouped(y: GmemMut<f32, 128>) {
                y.tile([0], [128]).store(splat::<f32>(1.0, [128]).to_layout(Layout::Strided));
            }
        }
    };
    assert_eq!(
        errors(quote!(uses(tiles)), &[tiles()], local),
        [
            "[T0126] `grouped` is a kernel of this module and a function of `tiles`, a library it uses",
            "[T0126] `store_tile` is defined in this module and in `tiles`, a library it uses"
        ]
    );
    let other = quote! {
        mod other {
            pub fn store_tile(x: i32) -> i32 { x }
            fn offset(u: i32) -> i32 { u }
        }
    };
    let call = quote!(let (a, b) = grouped::<2>(i, M / 64, N / 64); store_tile(acc, c, a, b));
    assert_eq!(
        errors(quote!(uses(tiles, other)), &[tiles(), other], module_calling(call)),
        ["[T0126] `tiles` and `other` both define `store_tile`"]
    );
}

#[test]
fn an_error_in_a_library_function_is_noted_at_each_call() {
    let broken = quote! {
        mod tiles {
            pub fn half(x: i32) -> i32 { x / two }
            pub fn quarter(x: i32) -> i32 { half(half(x)) }
            pub fn wrong(x: i32) -> i32 { x * 1.5 }
        }
    };
    // `half` names what it does not declare (reported where the library is declared, not here),
    // and `quarter` calls it: each call from the module gets a note.
    let calls = module_calling(quote!(let _q = quarter(i) + wrong(j)));
    assert_eq!(
        errors(quote!(uses(tiles)), &[broken], calls),
        [
            "[T0105] in this call of `quarter`",
            "[T0074] mismatched scalar types i32 and f32",
            "[T0105] in this call of `wrong`"
        ]
    );
}

#[test]
fn a_library_is_loaded_once() {
    let call = quote!(let (a, b) = grouped::<2>(i, M / 64, N / 64); store_tile(acc, c, a, b));
    assert_eq!(
        errors(quote!(uses(tiles, tiles)), &[tiles()], module_calling(call)),
        ["[T0125] `tiles` is listed twice in `uses(..)`"]
    );
}
