//! `#[kernels]` modules through the compiler: expansions, the inlined code, and the errors with
//! their notes, at the tokens they name.

use proc_macro2::TokenStream;
use quote::{quote, ToTokens as _};

/// The first line of each error of a module, in order.
fn errors(item: TokenStream) -> Vec<String> {
    match super::compile(TokenStream::new(), item) {
        Ok(_) => Vec::new(),
        Err(e) => e.into_iter().map(|e| e.to_string().lines().next().unwrap_or_default().to_string()).collect(),
    }
}

/// A module of two kernels that share a scalar function and one that takes handles.
fn gemm() -> TokenStream {
    quote! {
        mod gemm {
            use tessel::prelude::*;

            /// The tile a program takes at step `u`, going down `group` tile-rows at a time.
            fn tile_order(u: i32, tiles_m: i32, tiles_n: i32, group: i32) -> (i32, i32) {
                let first = u / (group * tiles_n) * group;
                let rows = min(tiles_m - first, group);
                (first + u % (group * tiles_n) % rows, u % (group * tiles_n) / rows)
            }

            fn epilogue(acc: Acc<f32, 64, _>, c: GmemMut<f32, M, N>, i: i32, j: i32) {
                c.tile([i, j]).store(acc.load());
            }

            fn load_step(a: Gmem<bf16, M, K>, b: Gmem<bf16, K, N>, a_s: Smem<bf16, 64, 64, Swizzle128>,
                         b_s: Smem<bf16, 64, _, Swizzle128>, bar: Barrier<2>, i: i32, j: i32, k: i32) {
                copy_gmem_to_smem(a.tile([i, k]), a_s, bar);
                copy_gmem_to_smem(b.tile([k, j]), b_s, bar);
            }

            #[kernel(grid = (M / 64 * (N / 64)))]
            pub fn matmul(a: Gmem<bf16, M, K>, b: Gmem<bf16, K, N>, c: GmemMut<f32, M, N>) {
                let (i, j) = tile_order(program_id(0), M / 64, N / 64, 2);
                run_scoped(
                    |acc: Acc<f32, 64, 64>,
                     a_s: Smem<bf16, 64, 64, Swizzle128>,
                     b_s: Smem<bf16, 64, 64, Swizzle128>,
                     bar: Barrier<2>| {
                        for k in 0..K / 64 {
                            load_step(a, b, a_s, b_s, bar, i, j, k);
                            barrier_wait(bar);
                            wgmma(acc, a_s, b_s);
                            wgmma_wait(0);
                        }
                        epilogue(acc, c, i, j);
                    },
                );
            }

            #[kernel(grid = (M / 64 * (N / 64)))]
            pub fn scale(x: Gmem<f32, M, N>, y: GmemMut<f32, M, N>, s: f32) {
                let (i, j) = tile_order(program_id(0), M / 64, N / 64, 4);
                y.tile([i, j], [64, 64]).store(x.tile([i, j], [64, 64]).load(Layout::Wgmma) * s);
            }
        }
    }
}

#[test]
fn kernels_share_functions() {
    let compiled = super::compile(TokenStream::new(), gemm()).unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(compiled.len(), 2);
    for c in &compiled {
        let ptx = c.ptx().unwrap_or_else(|e| panic!("{e}"));
        assert!(ptx.contains(".entry"), "{ptx}");
    }
    let out = super::expand(TokenStream::new(), gemm()).to_string();
    assert!(!out.contains("compile_error"), "{out}");
    let file: syn::File = syn::parse2(super::expand(TokenStream::new(), gemm())).expect("the expansion parses");
    let syn::Item::Mod(m) = &file.items[0] else { panic!("no module") };
    let names: Vec<String> = m.content.as_ref().map_or(vec![], |(_, items)| {
        items
            .iter()
            .filter_map(|i| match i {
                syn::Item::Mod(m) => Some(m.ident.to_string()),
                _ => None,
            })
            .collect()
    });
    assert_eq!(names, ["matmul", "scale"]);
}

#[test]
fn an_error_in_a_function_is_noted_at_its_call() {
    let errs = errors(quote! {
        mod m {
            fn twice(x: i32) -> i32 { x * 2.0 }
            #[kernel(grid = (1))]
            fn k(y: GmemMut<f32, 64>) { let t = twice(3); }
        }
    });
    assert_eq!(errs.len(), 2, "{errs:?}");
    assert!(errs[1].contains("[T0105] in this call of `twice`"), "{errs:?}");
}

#[test]
fn the_same_error_from_two_calls_is_reported_once_with_a_note_at_each() {
    let errs = errors(quote! {
        mod m {
            fn bad(x: i32) -> i32 { x + y }
            fn twice(x: i32) -> i32 { x * 2.0 }
            #[kernel(grid = (1))]
            fn k(y: GmemMut<f32, 64>) { let t = twice(3) + twice(4); }
        }
    });
    // (Without span locations the two calls are at one place, which gets one note: see
    // `compiler-tests/tests/ui/functions/error-in-body.rs` for a note at each.)
    assert_eq!(
        errs,
        [
            "[T0082] cannot find `y` in kernel function `bad`",
            "[T0074] mismatched scalar types i32 and f32",
            "[T0105] in this call of `twice`"
        ]
    );
}

#[test]
fn an_error_in_a_nested_call_is_noted_at_every_call_around_it() {
    let errs = errors(quote! {
        mod m {
            fn inner(x: i32) -> i32 { x * 2.0 }
            fn outer(x: i32) -> i32 { inner(x) + 1 }
            #[kernel(grid = (1))]
            fn k(y: GmemMut<f32, 64>) { let t = outer(3); }
        }
    });
    assert_eq!(
        errs,
        [
            "[T0074] mismatched scalar types i32 and f32",
            "[T0105] in this call of `inner`",
            "[T0105] in this call of `outer`"
        ]
    );
}

#[test]
fn argument_errors_are_the_callers_and_get_no_note() {
    let errs = errors(quote! {
        mod m {
            fn f(x: i32, a: Acc<f32, 64, 64>) -> i32 { x }
            #[kernel(grid = (1))]
            fn k(y: GmemMut<f32, 64>) {
                // (Without span locations, the second call's error on `acc` reads as the first's.)
                run_scoped(|acc: Acc<f32, 64, 128>| { let t = f(1.5 + z, acc); let u = f(1.5, acc); });
            }
        }
    });
    assert_eq!(
        errs,
        [
            "[T0082] cannot find `z` in this kernel",
            "[T0102] `f` takes Acc<f32, 64, 64> for `a`, but this is Acc<f32, 64, 128>",
            "[T0102] `f` takes i32 for `x`, but this is f32",
        ]
    );
}

#[test]
fn functions_are_read_whether_called_or_not() {
    let errs = errors(quote! {
        mod m {
            fn unused(x: i32) -> i32 { while x > 0 {} x + BK }
            fn loops(n: i32) -> i32 { let mut s = 0; for k in 0..n { s += k; } s }
            #[kernel(grid = (1), consts(BK = 64))]
            fn k(y: GmemMut<f32, 64>) { let t = loops(BK); }
        }
    });
    assert_eq!(
        errs,
        [
            "[T0093] unsupported in a tessel kernel: `while` loops (use `for i in a..b`)",
            "[T0082] cannot find `BK` in kernel function `unused`"
        ]
    );
}

#[test]
fn signatures_and_modules_are_checked() {
    let errs = errors(quote! {
        mod m {
            struct S;
            #[inline]
            fn a<'l>(x: i32) {}
            fn b(x: Foo, (p, q): (i32, i32)) -> Acc<f32, 64, 64> {}
            fn c(x: Smem<f32, BK, 64>) {}
            fn b() {}
            fn d__e() {}
            #[kernel(grid = (1))]
            fn k(y: GmemMut<f32, 64>) { b::<i32>(1, 2); c(); d__e(); }
        }
    });
    assert_eq!(
        errs,
        [
            "[T0100] a #[kernels] module holds kernels (`#[kernel(..)] fn`), the kernel functions they call (plain `fn`s) and `use` items",
            "[T0084] `b` is defined twice in this module",
            "[T0106] unsupported in a tessel kernel: lifetime parameters on a kernel",
            "[T0092] unsupported in a tessel kernel: attributes on a kernel function (only documentation)",
            "[T0096] unsupported in a tessel kernel: the type `Foo`; a kernel function's parameters are scalars, `Gmem`, `GmemMut`, `Smem`, `Barrier`, `Acc` or `Regs`",
            "[T0092] unsupported in a tessel kernel: this parameter pattern (name the parameter)",
            "[T0103] a kernel function returns scalars, register arrays or tuples of them, not Acc<f32, 64, 64>",
            "[T0096] expected an integer literal or `_`",
            "[T0084] `d__e` is not a kernel function's name",
            "[T0102] a kernel function takes no generic arguments",
            "[T0102] `c` takes 1 argument, got 0",
            "[T0105] in this call of `d__e`",
        ]
    );
}

#[test]
fn recursion_is_reported_at_the_call_that_closes_the_cycle() {
    let errs = errors(quote! {
        mod m {
            fn f(n: i32) -> i32 { if n > 0 { g(n - 1) } else { 0 } }
            fn g(n: i32) -> i32 { f(n) + h(n) }
            fn h(n: i32) -> i32 { h(n) }
            #[kernel(grid = (1))]
            fn k(y: GmemMut<f32, 64>) { let t = f(3); }
        }
    });
    assert_eq!(
        errs,
        [
            "[T0104] this call of `f` is recursive: `f` calls `g`, which calls `f`",
            "[T0104] `h` calls itself",
            "[T0105] in this call of `f`",
        ]
    );
}

#[test]
fn calls_that_multiply_are_cut_off() {
    // f0 calls f1 twice, f1 calls f2 twice, ..: 2^14 calls in all.
    let fns = (0..14u32).map(|i| {
        let (name, next) = (quote::format_ident!("f{i}"), quote::format_ident!("f{}", i + 1));
        quote!(fn #name(x: i32) -> i32 { #next(x) + #next(x + 1) })
    });
    let errs = errors(quote! {
        mod m {
            #(#fns)*
            fn f14(x: i32) -> i32 { x }
            #[kernel(grid = (1))]
            fn k(y: GmemMut<f32, 64>) { let t = f0(1); }
        }
    });
    assert!(errs.iter().any(|e| e.contains("would inline more than 4096 calls")), "{errs:?}");
}

#[test]
fn kernels_keep_their_attributes_and_arguments() {
    let out = super::expand(
        TokenStream::new(),
        quote! {
            /// Docs.
            #[allow(dead_code)]
            pub mod m {
                //! Inner docs.
                use tessel::prelude::*;
                fn one() -> i32 { 1 }
                /// A kernel.
                #[tessel::kernel(grid = (N / 128))]
                pub fn k(x: Gmem<f32, N>, y: GmemMut<f32, N>) {
                    let i = program_id(0);
                    y.tile([i], [128]).store(x.tile([i], [128]).load(Layout::Strided) + (one() as f32));
                }
            }
        },
    );
    let file: syn::File = syn::parse2(out.clone()).unwrap_or_else(|e| panic!("{e}: {out}"));
    let syn::Item::Mod(m) = &file.items[0] else { panic!("{out}") };
    assert!(matches!(m.vis, syn::Visibility::Public(_)));
    let outer = m.attrs.iter().filter(|a| matches!(a.style, syn::AttrStyle::Outer)).count();
    assert_eq!((outer, m.attrs.len()), (2, 3), "{out}");
    let items = &m.content.as_ref().expect("items").1;
    assert!(items.iter().any(|i| matches!(i, syn::Item::Use(_))));
    assert!(items.iter().any(|i| matches!(i, syn::Item::Mod(k) if k.ident == "k")), "{out}");
    assert!(!out.to_string().contains("compile_error"), "{out}");
    assert_eq!(
        errors(quote!(
            #[cfg(all())]
            fn not_a_module() {}
        )),
        ["[T0100] expected `mod` (`#[kernels]` goes on a module of kernels: `mod gemm { .. }`)"]
    );
    let args = super::compile(
        quote!(grid = (1)),
        quote!(
            mod m {}
        ),
    )
    .err()
    .map(|e| e.to_string());
    let expected = "[T0125] unknown argument `grid`: #[kernels] takes `uses(library, ..)`, the kernel-function \
                    libraries its kernels call";
    assert!(args.as_deref().is_some_and(|a| a.starts_with(expected)), "{args:?}");
}

#[test]
fn arguments_and_values_against_declared_types() {
    let errs = errors(quote! {
        mod m {
            fn zeros() -> (u32, f16) { (0, 1.5) }
            fn narrow(x: u8) -> u8 { x }
            fn arrive(bar: Barrier<2>, full: Barrier<1, _>, s: i32) { barrier_arrive(bar); barrier_wait(full.at(s)); }
            fn view(a: Smem<bf16, 64, _, Swizzle128, Transposed>) {}
            fn rows(r: Regs<f32, _, Layout::WgmmaRow>) -> Regs<f32, 64, Layout::WgmmaRow> { r }
            #[kernel(grid = (1), warpgroups = 2, warpgroup_axis = wg)]
            fn k(y: GmemMut<f32, 64>) {
                let (a, b) = zeros();
                let c = narrow(300);
                run_scoped(collective_axes = [wg], |one: Barrier<2>, ring: Barrier<1, 3>, b_s: Smem<bf16, 128, 64, Swizzle128>| {
                    arrive(one, ring, 1);
                    arrive(ring, one, 1);
                    view(b_s);
                    view(b_s.t());
                });
                let r = rows(splat::<f32>(1.0, [64, 64]).to_layout(Layout::Wgmma).sum(1));
            }
        }
    });
    assert_eq!(
        errs,
        [
            "[T0077] the literal 300 does not fit u8",
            "[T0102] `arrive` takes Barrier<2> for `bar`, but this is Barrier<1, 3>",
            "[T0102] `arrive` takes Barrier<1, _> for `full`, but this is Barrier<2>",
            "[T0102] `view` takes Smem<bf16, 64, _, Swizzle128, Transposed> for `a`, but this is Smem<bf16, 128, 64, Swizzle128>",
        ]
    );
}

#[test]
fn parameter_types_are_read_in_the_languages_syntax() {
    let errs = errors(quote! {
        mod m {
            fn a(x: Smem<bf16, 64, 64, Tiled<8, 64>>) {}
            fn b(x: Smem<bf16, BK, 64>, y: Barrier<STAGES>, z: Pipeline<2, 1, 1>) {}
            fn c(x: (i32, i32), y: Regs<f32, 64>, w: Acc<f32>) {}
        }
    });
    assert_eq!(
        errs,
        [
            "[T0101] unsupported in a tessel kernel: this shared-memory transform in a kernel function's parameter (Swizzle32/64/128, Swizzle<bytes>, NoSwizzle, Transposed)",
            // (`BK` and `STAGES`: without span locations, the second reads as the first.)
            "[T0096] expected an integer literal or `_`",
            "[T0101] a kernel function cannot take a `Pipeline` (not yet)",
            "[T0101] unsupported in a tessel kernel: tuple parameters (a kernel function takes one value per parameter)",
            "[T0096] unsupported in a tessel kernel: expected a layout such as `Layout::Wgmma`",
            "[T0096] unsupported in a tessel kernel: missing dimensions after the dtype (e.g. `Acc<f32, 64, 64>`, or `_` for any)",
        ]
    );
}

/// The PTX of the only kernel of a module.
fn ptx_of(item: TokenStream) -> String {
    let compiled = super::compile(TokenStream::new(), item).unwrap_or_else(|e| panic!("{e}"));
    compiled[0].ptx().unwrap_or_else(|e| panic!("{e}"))
}

#[test]
fn a_generic_function_is_inlined_with_the_calls_values() {
    let generic = ptx_of(quote! {
        mod m {
            /// `x` times two, into `y`'s N-wide tile `i`.
            fn twice<T, const N: usize>(x: Gmem<T, _>, y: GmemMut<T, _>, i: i32) {
                y.tile([i], [N]).store(x.tile([i], [N]).load(Layout::Strided) * (2.0 as T));
            }
            #[kernel(grid = (L / 128), consts(W = 128))]
            fn k(x: Gmem<bf16, L>, y: GmemMut<bf16, L>) {
                let i = program_id(0);
                twice::<bf16, W>(x, y, i);
            }
        }
    });
    let by_hand = ptx_of(quote! {
        mod m {
            #[kernel(grid = (L / 128), consts(W = 128))]
            fn k(x: Gmem<bf16, L>, y: GmemMut<bf16, L>) {
                let i = program_id(0);
                y.tile([i], [128]).store(x.tile([i], [128]).load(Layout::Strided) * (2.0 as bf16));
            }
        }
    });
    assert_eq!(generic, by_hand);
}

#[test]
fn a_generic_functions_values_are_written_and_checked() {
    let errs = errors(quote! {
        mod m {
            fn fill<T, const N: usize>(y: GmemMut<T, _>, i: i32) {
                y.tile([i], [N]).store(splat::<T>(1.0, [N]).to_layout(Layout::Strided));
            }
            #[kernel(grid = (L / 128))]
            fn k(y: GmemMut<f32, L>, n: i32) {
                let i = program_id(0);
                fill(y, i);
                fill::<f32>(y, i);
                fill::<128, f32>(y, i);
                fill::<f32, { n }>(y, i);
                fill::<bf16, 128>(y, i);
            }
        }
    });
    assert_eq!(
        errs,
        [
            "[T0122] `fill` is generic over `T` and `N`: name its instance",
            "[T0122] `fill` has 2 generic parameters (`T` and `N`), and this call gives 1",
            "[T0122] expected a dtype for the type parameter `T`",
            // (Once for `128, f32` and `{ n }`: without span locations the two read as one.)
            "[T0122] expected an integer from 0 to 2147483647, known when the kernel is read, for the const parameter `N`",
            "[T0102] `fill` takes GmemMut<bf16, _> for `y`, but this is GmemMut<f32, L>",
        ]
    );
}

#[test]
fn the_module_lists_every_instances_ptx() {
    let out = super::expand(
        TokenStream::new(),
        quote! {
            mod m {
                use tessel::prelude::*;
                #[kernel(grid = (L / 128))]
                pub fn plain(y: GmemMut<f32, L>) {
                    y.tile([program_id(0)], [128]).store(splat::<f32>(1.0, [128]).to_layout(Layout::Strided));
                }
                #[kernel(grid = (L / N), instances((f32, 128), (bf16, 64)))]
                pub fn fill<T, const N: usize>(y: GmemMut<T, L>) {
                    y.tile([program_id(0)], [N]).store(splat::<T>(1.0, [N]).to_layout(Layout::Strided));
                }
            }
        },
    );
    let file: syn::File = syn::parse2(out.clone()).unwrap_or_else(|e| panic!("{e}: {out}"));
    let syn::Item::Mod(m) = &file.items[0] else { panic!("{out}") };
    let items = &m.content.as_ref().expect("items").1;
    let all = items.iter().find_map(|i| match i {
        syn::Item::Const(c) if c.ident == "ALL_PTX" => Some(c.expr.to_token_stream().to_string()),
        _ => None,
    });
    let all = all.unwrap_or_else(|| panic!("no ALL_PTX: {out}"));
    let expected = quote! {
        &[
            ("plain", self::plain::PTX),
            ("fill::<f32, 128>", self::fill::<::core::primitive::f32, 128>::PTX),
            ("fill::<bf16, 64>", self::fill::<::tessel::__private::bf16, 64>::PTX)
        ]
    };
    assert_eq!(all, expected.to_string());
}
