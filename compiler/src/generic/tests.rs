//! Generic kernels through the compiler: each instance is the plain kernel with the instance's
//! values written in (the same PTX), errors name their instances, and the expansions (of a kernel
//! that compiles and of one that does not) are Rust with the items calls need.

use proc_macro2::TokenStream;
use quote::{quote, ToTokens};

/// A GEMM generic in its operands' dtype and its tile width.
fn gemm(instances: TokenStream) -> (TokenStream, TokenStream) {
    let attr = quote!(grid = (M / 64, N / BN), instances #instances);
    let item = quote! {
        fn matmul<T, const BN: usize>(a: Gmem<T, M, K>, b: Gmem<T, K, N>, c: GmemMut<f32, M, N>) {
            let (i, j) = (program_id(0), program_id(1));
            run_scoped(
                |acc: Acc<f32, 64, BN>,
                 a_s: Smem<T, 64, 64, Swizzle128>,
                 b_s: Smem<T, 64, BN, Swizzle128>,
                 bar: Barrier<2>| {
                    for k in 0..K / 64 {
                        copy_gmem_to_smem(a.tile([i, k]), a_s, bar);
                        copy_gmem_to_smem(b.tile([k, j]), b_s, bar);
                        barrier_wait(bar);
                        wgmma(acc, a_s, b_s);
                        wgmma_wait(0);
                    }
                    c.tile([i, j]).store(acc.load());
                },
            );
        }
    };
    (attr, item)
}

/// The same GEMM written for f16 and 128 columns.
fn gemm_f16_128() -> (TokenStream, TokenStream) {
    let attr = quote!(grid = (M / 64, N / 128));
    let item = quote! {
        fn matmul(a: Gmem<f16, M, K>, b: Gmem<f16, K, N>, c: GmemMut<f32, M, N>) {
            let (i, j) = (program_id(0), program_id(1));
            run_scoped(
                |acc: Acc<f32, 64, 128>,
                 a_s: Smem<f16, 64, 64, Swizzle128>,
                 b_s: Smem<f16, 64, 128, Swizzle128>,
                 bar: Barrier<2>| {
                    for k in 0..K / 64 {
                        copy_gmem_to_smem(a.tile([i, k]), a_s, bar);
                        copy_gmem_to_smem(b.tile([k, j]), b_s, bar);
                        barrier_wait(bar);
                        wgmma(acc, a_s, b_s);
                        wgmma_wait(0);
                    }
                    c.tile([i, j]).store(acc.load());
                },
            );
        }
    };
    (attr, item)
}

fn ptx(compiled: &crate::Compiled) -> String {
    compiled.ptx().expect("the PTX writer accepts a checked kernel")
}

/// The first line of each error.
fn messages(err: &syn::Error) -> Vec<String> {
    err.clone().into_iter().map(|e| e.to_string().lines().next().unwrap_or_default().to_string()).collect()
}

fn errors_of(attr: TokenStream, item: TokenStream) -> Vec<String> {
    match crate::compile(attr, item) {
        Ok(_) => Vec::new(),
        Err(e) => messages(&e),
    }
}

#[test]
fn an_instance_compiles_to_the_plain_kernel_it_stands_for() {
    let (attr, item) = gemm(quote!(((bf16, 64), (f16, 128))));
    let instances = crate::compile_instances(attr, item).expect("both instances compile");
    let names: Vec<&str> = instances.iter().map(|i| i.name.as_str()).collect();
    assert_eq!(names, ["matmul::<bf16, 64>", "matmul::<f16, 128>"]);
    let (attr, item) = gemm_f16_128();
    let plain = crate::compile(attr, item).expect("the plain kernel compiles");
    assert_eq!(ptx(&instances[1].compiled), ptx(&plain));
    assert_ne!(ptx(&instances[0].compiled), ptx(&plain));
    assert_eq!(instances[0].compiled.facts.runtime_dims, ["M", "K", "N"]);
}

#[test]
fn a_plain_kernel_is_its_only_instance() {
    let (attr, item) = gemm_f16_128();
    let instances = crate::compile_instances(attr, item).expect("the plain kernel compiles");
    assert_eq!(instances.len(), 1);
    assert_eq!(instances[0].name, "matmul");
}

#[test]
fn an_error_of_one_instance_names_it() {
    // 60 columns are no WGMMA tile (A6) and no row of whole 128-byte swizzle atoms (E15); 64 are.
    let (attr, item) = gemm(quote!(((bf16, 64), (bf16, 60))));
    let errors = errors_of(attr, item);
    assert_eq!(errors.len(), 2, "{errors:?}");
    assert!(errors.iter().all(|e| e.ends_with("(in the instance `matmul::<bf16, 60>`)")), "{errors:?}");
}

#[test]
fn an_error_of_every_instance_is_reported_once() {
    let attr = quote!(grid = (1), instances(bf16, f16, i8));
    let item = quote!(
        fn k<T>() {
            let x = nowhere;
        }
    );
    let errors = errors_of(attr, item);
    assert_eq!(errors.len(), 1, "{errors:?}");
    assert!(errors[0].ends_with("(in every instance: `k::<bf16>`, `k::<f16>`, `k::<i8>`)"), "{errors:?}");
}

#[test]
fn errors_that_differ_by_instance_are_reported_for_each() {
    let attr = quote!(grid = (1), instances(f32, bf16, u8, f16));
    let item = quote!(
        fn k<T>() {
            run_scoped(|acc: Acc<T, 64, 64>| {});
        }
    );
    let errors = errors_of(attr, item);
    // Acc<f16, ..> is legal too (WGMMA accumulates f16): bf16's and u8's errors remain, each its own.
    assert_eq!(errors.len(), 2, "{errors:?}");
    assert!(errors[0].contains("got bf16") && errors[0].ends_with("(in the instance `k::<bf16>`)"), "{errors:?}");
    assert!(errors[1].contains("got u8") && errors[1].ends_with("(in the instance `k::<u8>`)"), "{errors:?}");
}

#[test]
fn the_declaration_is_checked() {
    let item = quote!(
        fn k<T, const BN: usize>() {}
    );
    let cases = [
        (quote!(grid = (1)), "[T0107] the generic kernel `k` lists no instances"),
        (quote!(grid = (1), instances()), "[T0107] `instances(..)` lists no instance"),
        (quote!(grid = (1), instances = 3), "[T0107] expected `instances((..), ..)`"),
        (quote!(grid = (1), instances((bf16, 64)), instances((f16, 64))), "[T0107] `instances(..)` is given twice"),
        (
            quote!(grid = (1), instances((bf16, 64, 3))),
            "[T0107] `k` has 2 generic parameters, `T` and `BN`, and this instance gives 3 values",
        ),
        (
            quote!(grid = (1), instances(bf16)),
            "[T0107] expected an instance of `k`: a tuple of values for `T` and `BN`",
        ),
        (quote!(grid = (1), instances((bf17, 64))), "[T0107] expected a dtype for the type parameter `T`"),
        (
            quote!(grid = (1), instances((i4, 64))),
            "[T0107] `T` cannot be i4: calls name the instance by its host element type, and no host tensor holds it",
        ),
        (
            quote!(grid = (1), instances((bf16, 64u32))),
            "[T0107] expected an integer literal for the const parameter `BN: usize`",
        ),
        (
            quote!(grid = (1), instances((bf16, -64))),
            "[T0107] expected an integer literal for the const parameter `BN: usize`",
        ),
        (
            quote!(grid = (1), instances((bf16, 4294967296))),
            "[T0107] `BN` cannot be 4294967296: a `usize` const parameter of a kernel is at most 2147483647",
        ),
        (quote!(grid = (1), instances((bf16, 64), (bf16, 64))), "[T0107] the instance `k::<bf16, 64>` is listed twice"),
        (quote!(grid = (1), instances((bf16, 64),, (f16, 64))), "[T0107] expected an instance before this comma"),
    ];
    for (attr, want) in cases {
        let errors = errors_of(attr.clone(), item.clone());
        assert_eq!(errors, [want.to_string()], "for `{attr}`");
    }
}

#[test]
fn generic_parameters_are_dtypes_and_integers() {
    let cases = [
        (
            quote!(
                fn k<'a, T>() {}
            ),
            quote!(instances(bf16)),
            "[T0106] unsupported in a tessel kernel: lifetime parameters on a kernel",
        ),
        (
            quote!(
                fn k<T: Copy>() {}
            ),
            quote!(instances(bf16)),
            "[T0106] unsupported in a tessel kernel: bounds on a kernel's type parameter (`T` stands for a dtype)",
        ),
        (
            quote!(
                fn k<T = bf16>() {}
            ),
            quote!(instances(bf16)),
            "[T0106] unsupported in a tessel kernel: defaults for a kernel's generic parameters (list every instance)",
        ),
        (
            quote!(
                fn k<T>()
                where
                    T: Copy,
                {
                }
            ),
            quote!(instances(bf16)),
            "[T0106] unsupported in a tessel kernel: `where` clauses on a kernel (its type parameters stand for dtypes)",
        ),
        (
            quote!(
                fn k<const N: f32>() {}
            ),
            quote!(instances(1)),
            "[T0106] the const parameter `N` is not an integer",
        ),
        (
            quote!(
                fn k<const N: u8>() {}
            ),
            quote!(instances(256)),
            "[T0107] `N` cannot be 256: a `u8` const parameter of a kernel is at most 255",
        ),
        (
            quote!(
                fn k<T, T>() {}
            ),
            quote!(instances((bf16, f16))),
            "[T0106] the generic parameter `T` is declared twice",
        ),
        (
            quote!(
                fn k<bf16>() {}
            ),
            quote!(instances(f16)),
            "[T0106] a generic parameter cannot be called `bf16`: it is a dtype's name",
        ),
        (
            quote!(
                fn k() {}
            ),
            quote!(instances(bf16)),
            "[T0107] `instances(..)` lists the instances of a generic kernel, and `k` has no generic parameters",
        ),
    ];
    for (item, instances, want) in cases {
        let attr = quote!(grid = (1), #instances);
        let errors = errors_of(attr, item.clone());
        assert_eq!(errors.first().map(String::as_str), Some(want), "for `{item}`: {errors:?}");
    }
}

#[test]
fn a_parameter_is_replaced_wherever_it_is_used() {
    // In the grid, consts, a shape, a turbofish, an unrolled loop's bounds; not after `.` or `::`.
    let attr = quote!(grid = (M / W), consts(HALF = W / 2), instances((f16, 128), (f32, 64)));
    let item = quote! {
        fn k<T, const W: usize>(x: Gmem<T, M>, y: GmemMut<f32, M>) {
            let i = program_id(0);
            let v = x.tile([i], [W]).load(Layout::Strided).cast::<f32>();
            let w = splat::<T>(1.0, [W]).cast::<f32>();
            #[unroll]
            for q in 0..W / 64 {
                let half = HALF + q;
            }
            y.tile([i], [W]).store(v + w);
        }
    };
    let instances = crate::compile_instances(attr, item).unwrap_or_else(|e| panic!("{:?}", messages(&e)));
    assert_eq!(instances.len(), 2);
    assert_eq!(instances[0].compiled.facts.consts.get("HALF"), Some(&64));
    assert_eq!(instances[1].compiled.facts.consts.get("HALF"), Some(&32));
}

/// The expansion of a generic kernel, parsed, with its compile errors.
fn expansion(attr: TokenStream, item: TokenStream) -> (syn::File, Vec<String>) {
    let out = crate::expand(attr, item);
    let file: syn::File =
        syn::parse2(out.clone()).unwrap_or_else(|e| panic!("the expansion does not parse: {e}\n{out}"));
    let errors = file
        .items
        .iter()
        .filter_map(|item| match item {
            syn::Item::Macro(m) if m.mac.path.segments.last().is_some_and(|s| s.ident == "compile_error") => {
                Some(m.mac.tokens.to_string())
            }
            _ => None,
        })
        .collect();
    (file, errors)
}

/// The item names of a file and of the modules in it, as `mod::name`.
fn item_names(items: &[syn::Item], prefix: &str, out: &mut Vec<String>) {
    for item in items {
        let name = match item {
            syn::Item::Struct(s) => s.ident.to_string(),
            syn::Item::Trait(t) => t.ident.to_string(),
            syn::Item::Mod(m) => {
                let name = format!("{prefix}{}", m.ident);
                if let Some((_, inner)) = &m.content {
                    item_names(inner, &format!("{name}::"), out);
                }
                m.ident.to_string()
            }
            syn::Item::Impl(i) => format!("impl {}", i.self_ty.to_token_stream()),
            _ => continue,
        };
        out.push(format!("{prefix}{name}"));
    }
}

#[test]
fn a_generic_kernel_expands_to_a_struct_over_its_instances() {
    let (attr, item) = gemm(quote!(((bf16, 64), (f16, 128))));
    let (file, errors) = expansion(attr, item);
    assert!(errors.is_empty(), "{errors:?}");
    let mut names = Vec::new();
    item_names(&file.items, "", &mut names);
    for want in [
        "__tessel_matmul",
        "__tessel_matmul::matmul",
        "__tessel_matmul::Instance",
        "__tessel_matmul::__instance_0",
        "__tessel_matmul::__instance_1",
        "__tessel_matmul::impl self :: matmul < :: tessel :: __private :: bf16 , 64 >",
        "__tessel_matmul::impl self :: matmul < :: tessel :: __private :: f16 , 128 >",
        "__tessel_matmul::impl self :: matmul < T , BN >",
    ] {
        assert!(names.iter().any(|n| n == want), "no `{want}` in {names:#?}");
    }
    assert!(file.items.iter().any(|i| matches!(i, syn::Item::Use(u) if u.to_token_stream().to_string() == "# [allow (unused_imports)] use __tessel_matmul :: matmul ;")));
    let text = file.to_token_stream().to_string();
    assert!(text.contains("pub fn launch"));
    assert!(text.contains("diagnostic :: on_unimplemented"));
    // The generic signature: the type parameter where the kernel names it, f32 where it does not.
    assert!(text.contains("a : & impl :: tessel :: __private :: AsDeviceView < T >"), "{text}");
    assert!(text.contains("c : & mut impl :: tessel :: __private :: AsDeviceViewMut < :: core :: primitive :: f32 >"));
}

#[test]
fn a_rejected_generic_kernel_keeps_its_calls_quiet() {
    let (attr, item) = gemm(quote!(((bf16, 64), (bf16, 60))));
    let (file, errors) = expansion(attr, item);
    assert_eq!(errors.len(), 2, "{errors:?}");
    let text = file.to_token_stream().to_string();
    // The struct, and its items for any arguments: no bound names a trait.
    assert!(text.contains("pub struct matmul < T : :: tessel :: __private :: Element , const BN : usize >"), "{text}");
    assert!(text.contains("use __tessel_matmul :: matmul ;"), "{text}");
    assert!(text.contains("pub fn launch") && text.contains("pub fn interpret") && text.contains("pub const PTX"));
    assert!(!text.contains("trait Instance"), "{text}");
}

#[test]
fn instances_on_a_plain_kernel_expand_to_its_module() {
    let attr = quote!(grid = (1), instances(bf16));
    let item = quote!(
        fn k() {}
    );
    let (file, errors) = expansion(attr, item);
    assert_eq!(errors.len(), 1, "{errors:?}");
    assert!(file.items.iter().any(|i| matches!(i, syn::Item::Mod(m) if m.ident == "k")));
}

#[test]
fn a_parameter_may_be_an_attribute_value_an_annotation_or_a_cast() {
    let attr = quote!(grid = (M / 64), warpgroups = WG, instances((f32, 1), (i32, 2)));
    let item = quote! {
        fn k<T, const WG: usize>(x: Gmem<T, M, 64>, y: GmemMut<T, M, 64>, s: i32) {
            let i = program_id(0);
            let v: Regs<T, 64, 64, Layout::Strided> = x.tile([i, 0], [64, 64]).load(Layout::Strided);
            y.tile([i, 0], [64, 64]).store(v * (s as T));
        }
    };
    let instances = crate::compile_instances(attr, item).unwrap_or_else(|e| panic!("{:?}", messages(&e)));
    let warpgroups: Vec<u32> = instances.iter().map(|i| i.compiled.kernel.attr.warpgroups.value).collect();
    assert_eq!(warpgroups, [1, 2]);
}

/// A kernel whose programs exchange rows through a cluster in the instances with CLUSTER = 2,
/// and not at all with CLUSTER = 1: an allocation, a flag and code that only some instances have.
fn exchange(instances: TokenStream) -> (TokenStream, TokenStream) {
    let attr = quote!(grid = (2 * (M / 64),), cluster = (CLUSTER,), instances #instances);
    let item = quote! {
        fn k<const CLUSTER: usize>(x: Gmem<bf16, M, 64>, y: GmemMut<bf16, M, 64>) {
            let i = program_id(0) / 2;
            run_scoped(
                |x_s: Smem<bf16, 64, 64, Swizzle128>,
                 bar: Barrier,
                 #[when(CLUSTER > 1)] y_s: Smem<bf16, 64, 64, Swizzle128>| {
                    copy_gmem_to_smem(x.tile([i, 0]), x_s, bar, multicast = CLUSTER == 2);
                    barrier_wait(bar);
                    if CLUSTER > 1 {
                        y_s.store(x_s.load(Layout::Strided));
                        commit_smem();
                        copy_smem_to_gmem(y_s, y.tile([i + cluster_rank(), 0]));
                    } else {
                        copy_smem_to_gmem(x_s, y.tile([i, 0]));
                    }
                    let j = if CLUSTER == 1 { i } else { i + cluster_rank() };
                    y.tile([j, 0], [64, 64]).store(x_s.load(Layout::Strided));
                },
            );
        }
    };
    (attr, item)
}

#[test]
fn an_instance_leaves_out_what_its_known_conditions_rule_out() {
    let (attr, item) = exchange(quote!((1, 2)));
    let instances = crate::compile_instances(attr, item).unwrap_or_else(|e| panic!("{e}"));
    let (one, two) = (ptx(&instances[0].compiled), ptx(&instances[1].compiled));
    // Without clusters: no multicast, no cluster rank, one buffer.
    assert!(!one.contains("multicast") && !one.contains("%cluster_ctarank"), "{one}");
    assert!(two.contains("multicast::cluster") && two.contains("%cluster_ctarank"), "{two}");
    assert!(instances[0].compiled.facts.smem_bytes < instances[1].compiled.facts.smem_bytes);
    // The instance with CLUSTER = 1 is the kernel written without the other branches.
    let plain = quote! {
        fn k(x: Gmem<bf16, M, 64>, y: GmemMut<bf16, M, 64>) {
            let i = program_id(0) / 2;
            run_scoped(|x_s: Smem<bf16, 64, 64, Swizzle128>, bar: Barrier| {
                copy_gmem_to_smem(x.tile([i, 0]), x_s, bar);
                barrier_wait(bar);
                copy_smem_to_gmem(x_s, y.tile([i, 0]));
                let j = i;
                y.tile([j, 0], [64, 64]).store(x_s.load(Layout::Strided));
            });
        }
    };
    let plain = crate::compile(quote!(grid = (2 * (M / 64),), cluster = (1,)), plain).unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(one, ptx(&plain));
}

#[test]
fn flags_and_allocations_need_conditions_known_when_the_kernel_is_read() {
    let item = quote! {
        fn k(x: Gmem<bf16, M, 64>, y: GmemMut<bf16, M, 64>, n: i32) {
            let i = program_id(0) / 2;
            run_scoped(
                |x_s: Smem<bf16, 64, 64, Swizzle128>,
                 bar: Barrier,
                 #[when(n > 1)] y_s: Smem<bf16, 64, 64>,
                 #[allow(unused)] z_s: Smem<bf16, 64, 64>,
                 #[when] w_s: Smem<bf16, 64, 64>| {
                    copy_gmem_to_smem(x.tile([i, 0]), x_s, bar, multicast = i > 0);
                    barrier_wait(bar);
                    copy_smem_to_gmem(x_s, y.tile([i, 0]));
                },
            );
        }
    };
    assert_eq!(
        errors_of(quote!(grid = (2 * (M / 64),), cluster = (2,)), item),
        [
            "[T0121] the condition of `#[when(..)]` must be known when the kernel is read",
            "[T0123] this attribute on an allocation",
            "[T0123] expected `#[when(condition)]`",
            "[T0121] `multicast = ..` must be known when the kernel is read",
        ]
    );
}

/// A copy with an optional bias (`#[when(BIAS == 1)] b`) and rows ragged where RAGGED = 1.
fn add(instances: TokenStream) -> (TokenStream, TokenStream) {
    let attr = quote!(grid = (cdiv(M, 64), N / 64), ragged(#[when(RAGGED == 1)] M), instances #instances);
    let item = quote! {
        fn add<const BIAS: usize, const RAGGED: usize>(
            x: Gmem<f32, M, N>,
            #[when(BIAS == 1)] b: Gmem<f32, M, N>,
            y: GmemMut<f32, M, N>,
        ) {
            let (i, j) = (program_id(0), program_id(1));
            let t = x.tile([i, j], [64, 64]).load(Layout::Strided);
            if BIAS == 1 {
                y.tile([i, j], [64, 64]).store(t + b.tile([i, j], [64, 64]).load(Layout::Strided));
            } else {
                y.tile([i, j], [64, 64]).store(t);
            }
        }
    };
    (attr, item)
}

#[test]
fn instances_differ_in_their_parameters_and_ragged_dimensions() {
    let (attr, item) = add(quote!(((0, 0), (1, 1))));
    let instances = crate::compile_instances(attr, item).unwrap_or_else(|e| panic!("{e}"));
    let params =
        |i: usize| -> Vec<String> { instances[i].compiled.kernel.params.iter().map(|p| p.name.to_string()).collect() };
    assert_eq!(params(0), ["x", "y"]);
    assert_eq!(params(1), ["x", "b", "y"]);
    assert_eq!(instances[0].compiled.kernel.left_out, ["b"]);
    assert!(instances[0].compiled.facts.ragged.is_empty());
    assert_eq!(instances[1].compiled.facts.ragged, ["M"]);
    // The instance without the bias is the kernel written without it.
    let plain = quote! {
        fn add(x: Gmem<f32, M, N>, y: GmemMut<f32, M, N>) {
            let (i, j) = (program_id(0), program_id(1));
            let t = x.tile([i, j], [64, 64]).load(Layout::Strided);
            y.tile([i, j], [64, 64]).store(t);
        }
    };
    let plain = crate::compile(quote!(grid = (cdiv(M, 64), N / 64)), plain).unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(ptx(&instances[0].compiled), ptx(&plain));
}

#[test]
fn instances_with_their_own_parameters_get_their_own_launch() {
    let (attr, item) = add(quote!(((0, 0), (1, 1))));
    let (file, errors) = expansion(attr, item);
    assert!(errors.is_empty(), "{errors:?}");
    let mut names = Vec::new();
    item_names(&file.items, "", &mut names);
    for want in ["__tessel_add::impl self :: add < 0 , 0 >", "__tessel_add::impl self :: add < 1 , 1 >"] {
        assert!(names.iter().any(|n| n == want), "no `{want}` in {names:#?}");
    }
    let text = file.to_token_stream().to_string();
    let launch = |args: &str| format!("pub fn launch (stream : & impl :: tessel :: __private :: AsStream , {args})");
    let (x, y) = (
        "x : & impl :: tessel :: __private :: AsDeviceView < :: core :: primitive :: f32 >",
        "y : & mut impl :: tessel :: __private :: AsDeviceViewMut < :: core :: primitive :: f32 >",
    );
    let b = x.replace("x :", "b :");
    assert!(text.contains(&launch(&format!("{x} , {y}"))), "no launch of x and y");
    assert!(text.contains(&launch(&format!("{x} , {b} , {y}"))), "no launch of x, b and y");
    // No generic `launch`: the trait has the constants only.
    assert_eq!(text.matches("fn launch").count(), 2 + 2, "two instances' modules and two impls");
    // A rejected kernel's fallback keeps each readable instance's own signature too.
    let (attr, item) = add(quote!(((0, 0), (1, 1), (1, 2))));
    let (file, errors) = expansion(quote!(#attr, consts(Z = 1 / (RAGGED - 2))), item);
    assert!(!errors.is_empty());
    let text = file.to_token_stream().to_string();
    assert!(text.contains("impl self :: add < 0 , 0 >") && text.contains("impl self :: add < 1 , 1 >"));
}

#[test]
fn when_on_parameters_and_ragged_dimensions_is_checked() {
    let item = quote! {
        fn k(x: Gmem<f32, M, N>, #[when(n > 0)] y: GmemMut<f32, M, N>, #[allow(unused)] z: GmemMut<f32, M, N>, #[when(false)] w: Gmem<f32, M, N>, n: i32) {
            let (i, j) = (program_id(0), program_id(1));
            y.tile([i, j], [64, 64]).store(w.tile([i, j], [64, 64]).load(Layout::Strided));
        }
    };
    assert_eq!(
        errors_of(
            quote!(
                grid = (cdiv(M, 64), cdiv(N, 64)),
                ragged(
                    #[cfg(x)]
                    M,
                    #[when(n > 0)]
                    N
                )
            ),
            item
        ),
        [
            "[T0141] this attribute on a dimension of `ragged(..)`",
            "[T0121] the condition of `#[when(..)]` must be known when the kernel is read",
            "[T0121] the condition of `#[when(..)]` must be known when the kernel is read",
            "[T0141] this attribute on a kernel parameter",
            "[T0142] `w` is not a parameter here: its `#[when(..)]` condition is false",
        ]
    );
}
