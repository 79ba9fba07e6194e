//! The generated items of small kernels, read back with syn: signatures, the ABI order of the
//! launch arguments, and the fallback of rejected kernels.

use proc_macro2::TokenStream;
use quote::{quote, ToTokens};

/// `crate::expand` of `#[kernel(attr)] item`, parsed as a file.
fn expand(attr: TokenStream, item: TokenStream) -> syn::File {
    let out = crate::expand(attr, item);
    syn::parse2(out.clone()).unwrap_or_else(|e| panic!("the expansion does not parse: {e}\n{out}"))
}

/// The items of the module `name` in `file`.
fn module<'a>(file: &'a syn::File, name: &str) -> &'a [syn::Item] {
    file.items
        .iter()
        .find_map(|item| match item {
            syn::Item::Mod(m) if m.ident == name => m.content.as_ref().map(|(_, items)| items.as_slice()),
            _ => None,
        })
        .unwrap_or_else(|| panic!("no module `{name}` in {}", file.to_token_stream()))
}

fn function<'a>(items: &'a [syn::Item], name: &str) -> &'a syn::ItemFn {
    items
        .iter()
        .find_map(|item| match item {
            syn::Item::Fn(f) if f.sig.ident == name => Some(f),
            _ => None,
        })
        .unwrap_or_else(|| panic!("no fn `{name}`"))
}

/// A function's signature as normalized token text.
fn signature(f: &syn::ItemFn) -> String {
    f.sig.to_token_stream().to_string()
}

/// A signature written in a test, normalized as `signature` does (`>>` and `> >` read alike).
fn normalized(sig: TokenStream) -> String {
    syn::parse2::<syn::Signature>(sig).expect("a signature").to_token_stream().to_string()
}

/// The compile errors of an expansion.
fn errors(file: &syn::File) -> Vec<String> {
    file.items
        .iter()
        .filter_map(|item| match item {
            syn::Item::Macro(m) if m.mac.path.segments.last().is_some_and(|s| s.ident == "compile_error") => {
                Some(m.mac.tokens.to_string())
            }
            _ => None,
        })
        .collect()
}

fn gemm() -> (TokenStream, TokenStream) {
    let attr = quote!(grid = (M / 64, N / 64));
    let item = quote! {
        /// C = alpha * A @ B.
        pub fn gemm(a: Gmem<bf16, M, K>, b: Gmem<bf16, K, N>, c: GmemMut<f32, M, N>, alpha: f32, seed: i64) {
            let (i, j) = (program_id(0), program_id(1));
            run_scoped(|acc: Acc<f32, 64, 64>, a_s: Smem<bf16, 64, 64, Swizzle128>, b_s: Smem<bf16, 64, 64, Swizzle128>, bar: Barrier<2>| {
                for k in 0..K / 64 {
                    copy_gmem_to_smem(a.tile([i, k]), a_s, bar);
                    copy_gmem_to_smem(b.tile([k, j]), b_s, bar);
                    barrier_wait(bar);
                    wgmma(acc, a_s, b_s);
                    wgmma_wait(0);
                }
                c.tile([i, j]).store(acc.load() * alpha);
            });
        }
    };
    (attr, item)
}

#[test]
fn launch_interpret_and_check_args_take_the_kernel_parameters() {
    let (attr, item) = gemm();
    let file = expand(attr, item);
    assert_eq!(errors(&file), Vec::<String>::new());
    let items = module(&file, "gemm");
    let p = quote!(::tessel::__private);
    let bf16 = quote!(#p::bf16);
    let f32 = quote!(::core::primitive::f32);
    let i64 = quote!(::core::primitive::i64);
    let expected = quote! {
        fn launch(stream: &impl #p::AsStream, a: &impl #p::AsDeviceView<#bf16>, b: &impl #p::AsDeviceView<#bf16>,
            c: &mut impl #p::AsDeviceViewMut<#f32>, alpha: #f32, seed: #i64) -> ::tessel::Result<()>
    };
    assert_eq!(signature(function(items, "launch")), normalized(expected));
    let expected = quote! {
        fn interpret(a: &#p::HostTensor<#bf16>, b: &#p::HostTensor<#bf16>, c: &mut #p::HostTensor<#f32>,
            alpha: #f32, seed: #i64) -> ::tessel::Result<()>
    };
    assert_eq!(signature(function(items, "interpret")), normalized(expected));
    let usizes = quote!(&[::core::primitive::usize]);
    let expected = quote! {
        fn check_args(a: #usizes, b: #usizes, c: #usizes, alpha: #f32, seed: #i64)
            -> ::tessel::Result<#p::LaunchPlan<3usize>>
    };
    assert_eq!(signature(function(items, "check_args")), normalized(expected));
}

#[test]
fn the_module_has_the_constants_and_the_user_docs() {
    let (attr, item) = gemm();
    let out = crate::expand(attr, item).to_string();
    for needle in [
        "pub const SIGNATURE",
        "pub const PTX : :: tessel :: __private :: Ptx",
        "pub const ENTRY : & str = \"gemm\"",
        "C = alpha * A @ B.",
    ] {
        assert!(out.contains(needle), "no `{needle}` in {out}");
    }
    assert!(out.contains("pub mod gemm"), "the module keeps the function's visibility");
}

#[test]
fn launch_passes_arguments_in_abi_order() {
    let (attr, item) = gemm();
    let file = expand(attr, item);
    let body = function(module(&file, "gemm"), "launch").block.to_token_stream().to_string();
    let args = body.split("let args = [").nth(1).expect("an argument array");
    let args = args.split("] ;").next().unwrap_or_default();
    let order: Vec<&str> = [
        "Ptr (ptr_a)",
        "Ptr (ptr_b)",
        "Ptr (ptr_c)",
        "F32 (alpha)",
        "U64 (seed as",
        "dims [0usize]",
        "dims [2usize]",
        "TensorMap (map_0)",
        "TensorMap (map_1)",
    ]
    .into_iter()
    .collect();
    let positions: Vec<usize> =
        order.iter().map(|needle| args.find(needle).unwrap_or_else(|| panic!("no `{needle}` in {args}"))).collect();
    assert!(positions.windows(2).all(|w| w[0] < w[1]), "out of ABI order: {args}");
    // Every tensor is read through the view it lends; writes go through `device_ptr_mut`, reads
    // through `device_ptr`.
    assert!(body.contains("let a = :: tessel :: __private :: AsDeviceView :: as_view (a) ;"), "{body}");
    assert!(body.contains("let mut c = :: tessel :: __private :: AsDeviceViewMut :: as_view_mut (c) ;"), "{body}");
    assert!(body.contains("c . device_ptr_mut"), "{body}");
    assert!(body.contains("a . device_ptr (cu_stream)"), "{body}");
    assert!(body.contains("Swizzle :: B128"), "{body}");
}

#[test]
fn unsupported_parameter_types_are_errors_with_a_fallback() {
    let attr = quote!(grid = (M / 64));
    let item = quote! {
        fn halve(x: Gmem<i4, M>, y: GmemMut<f32, M>, scale: f32) {
            let i = program_id(0);
        }
    };
    let file = expand(attr, item);
    let errors = errors(&file);
    assert_eq!(errors.len(), 1, "{errors:?}");
    assert!(errors[0].contains("unsupported in a tessel kernel: global arrays of i4"), "{errors:?}");
    // The fallback keeps the parameters the host understands and accepts anything for the others.
    let launch = signature(function(module(&file, "halve"), "launch"));
    assert!(launch.contains("y : & mut impl :: tessel :: __private :: AsDeviceViewMut < :: core :: primitive :: f32 >"));
    assert!(launch.contains("scale : :: core :: primitive :: f32"), "{launch}");
    assert!(launch.contains("x : impl :: core :: marker :: Sized"), "{launch}");
}

/// A scalar parameter the ABI cannot pass is a type error of the front end (so `compile`, which
/// the PTX writer and the interpreter start from, rejects it too), and the fallback accepts anything
/// in its place.
#[test]
fn scalar_parameters_of_other_types_are_type_errors() {
    let attr = quote!(grid = (M / 64));
    let item = quote! {
        fn halve(y: GmemMut<f32, M>, scale: bf16) {
            let i = program_id(0);
        }
    };
    let rejected = crate::compile(attr.clone(), item.clone()).err().expect("a bf16 scalar parameter is rejected");
    assert_eq!(rejected.into_iter().count(), 1);
    let file = expand(attr, item);
    let errors = errors(&file);
    assert_eq!(errors.len(), 1, "{errors:?}");
    assert!(errors[0].contains("a scalar parameter is f32, i32, u32, i64 or u64, got bf16"), "{errors:?}");
    let launch = signature(function(module(&file, "halve"), "launch"));
    assert!(launch.contains("scale : impl :: core :: marker :: Sized"), "{launch}");
}

/// The host passes by value exactly the scalar types the checker accepts.
#[test]
fn host_scalars_are_the_checked_scalar_parameters() {
    for d in crate::types::DType::ALL {
        let host = super::params::Scalar::of(d).is_some();
        assert_eq!(host, crate::legality::SCALAR_PARAMS.contains(&d), "{d}");
    }
}

#[test]
fn a_rejected_kernel_still_gets_every_item() {
    let attr = quote!(grid = (M / 64));
    let item = quote! {
        pub(crate) fn broken(x: Gmem<f32, M>, y: GmemMut<f32, M>) {
            let i = program_id(0);
            let z = undefined_name + 1;
        }
    };
    let file = expand(attr, item);
    assert_eq!(errors(&file).len(), 1);
    let items = module(&file, "broken");
    for name in ["check_args", "launch", "interpret"] {
        function(items, name);
    }
    let interpret = signature(function(items, "interpret"));
    assert!(interpret.contains("x : & :: tessel :: __private :: HostTensor < :: core :: primitive :: f32 >"));
    assert!(crate::expand(
        quote!(grid = (1)),
        quote!(
            struct NotAFunction;
        )
    )
    .to_string()
    .contains("compile_error"));
}

#[test]
fn grid_expressions_become_checked_arithmetic() {
    let attr = quote!(grid = ((M + 63) / 64, n, 2), consts(T = 4));
    let item = quote! {
        fn scaled(x: Gmem<f32, M, 64>, y: GmemMut<f32, M, 64>, n: u32) {
            let i = program_id(0);
        }
    };
    let file = expand(attr, item);
    assert_eq!(errors(&file), Vec::<String>::new());
    let body = function(module(&file, "scaled"), "check_args").block.to_token_stream().to_string();
    assert!(body.contains("\"(M + 63) / 64\""), "{body}");
    assert!(body.contains("GridValue :: from_usize (dim_M) + :: tessel :: __private :: GridValue :: new (63i64)"));
    assert!(body.contains("i64 :: from (n)"), "{body}");
    assert!(body.contains("Dim :: Static (64i64)"), "{body}");
}

#[test]
fn grid_expressions_outside_integer_arithmetic_are_errors() {
    let attr = quote!(grid = (num_programs(0)));
    let item = quote! {
        fn odd(x: GmemMut<f32, M>) {
            let i = program_id(0);
        }
    };
    let errors = errors(&expand(attr, item));
    assert_eq!(errors.len(), 1, "{errors:?}");
    assert!(errors[0].contains("this expression in the grid"), "{errors:?}");
}

#[test]
fn raw_and_shadowing_parameter_names_are_fine() {
    let attr = quote!(grid = (M / 64));
    let item = quote! {
        fn odd_names(r#type: Gmem<f32, M, 64>, stream: GmemMut<f32, M, 64>, check_args: i32) {
            let i = program_id(0);
            let v = r#type.tile([i, 0], [64, 64]).load(Layout::Strided);
            stream.tile([i, 0], [64, 64]).store(v);
        }
    };
    let file = expand(attr, item);
    assert_eq!(errors(&file), Vec::<String>::new());
    let body = function(module(&file, "odd_names"), "launch").block.to_token_stream().to_string();
    assert!(body.contains("self :: check_args (r#type . shape () , stream . shape () , check_args)"), "{body}");
    assert!(body.contains("ptr_type"), "{body}");
}

#[test]
fn alignment_slack_past_the_shared_memory_limit_is_an_error() {
    let attr = quote!(grid = (M / 64));
    let item = quote! {
        fn big(x: GmemMut<f32, M, 64>) {
            run_scoped(|s: Smem<u8, 2, 116000>| {});
        }
    };
    // The buffers alone fit (232000 bytes); the 1024 bytes of alignment slack do not. Checking
    // (typeck's A9 over the whole dynamic shared memory) rejects it, before any code is generated.
    assert!(crate::compile(attr.clone(), item.clone()).is_err(), "the front end rejects it");
    let errors = errors(&expand(attr, item));
    assert_eq!(errors.len(), 1, "{errors:?}");
    assert!(errors[0].contains("max_smem_bytes=232448"), "{errors:?}");
}

/// The text of the `PTX` constant of module `name`: `{ static DEFLATED: [u8; N] = *b".."; Ptx::deflated(&DEFLATED, len) }`,
/// inflated.
fn ptx_of(file: &syn::File, name: &str) -> String {
    let block = module(file, name)
        .iter()
        .find_map(|item| match item {
            syn::Item::Const(c) if c.ident == "PTX" => match &*c.expr {
                syn::Expr::Block(b) => Some(&b.block),
                _ => None,
            },
            _ => None,
        })
        .unwrap_or_else(|| panic!("no PTX block in `{name}`"));
    let (bytes, n, len) = match &block.stmts[..] {
        [syn::Stmt::Item(syn::Item::Static(st)), syn::Stmt::Expr(syn::Expr::Call(call), None)] => {
            match (&*st.expr, &*st.ty, call.args.last()) {
                (
                    syn::Expr::Unary(syn::ExprUnary { expr, .. }),
                    syn::Type::Array(syn::TypeArray {
                        len: syn::Expr::Lit(syn::ExprLit { lit: syn::Lit::Int(n), .. }),
                        ..
                    }),
                    Some(syn::Expr::Lit(syn::ExprLit { lit: syn::Lit::Int(len), .. })),
                ) => match &**expr {
                    syn::Expr::Lit(syn::ExprLit { lit: syn::Lit::ByteStr(b), .. }) => {
                        (b.value(), n.base10_parse::<usize>(), len.base10_parse::<usize>().expect("a length"))
                    }
                    other => panic!("not a byte string: {}", other.to_token_stream()),
                },
                _ => panic!("not `static DEFLATED: [u8; N] = *b\"..\"`: {}", st.to_token_stream()),
            }
        }
        _ => panic!("not a static and a call: {}", block.to_token_stream()),
    };
    assert_eq!(n.ok(), Some(bytes.len()), "the static's length is its bytes'");
    tessel_ir::compress::inflate_str(&bytes, len)
        .unwrap_or_else(|e| panic!("the PTX of `{name}` does not inflate: {e}"))
}

#[test]
fn the_embedded_ptx_is_the_compiled_ptx() {
    let (attr, item) = gemm();
    let compiled = crate::compile(attr.clone(), item.clone()).expect("gemm compiles");
    let ptx = compiled.ptx().expect("the PTX writer accepts gemm");
    assert_eq!(ptx_of(&expand(attr, item), "gemm"), ptx, "byte for byte");
}

#[test]
fn constants_fold_wrapping_to_their_width_without_a_panic() {
    let attr = quote!(grid = (1));
    let item = quote! {
        fn wraps(x: GmemMut<i32, 64>) {
            // Checking evaluates only consts; the PTX writer folds each operand to `i64::MIN`.
            let negated = -((-2147483647 - 1) * (-2147483647 - 1) * 2);
            let divided = (-2147483647 - 1) * (-2147483647 - 1) * 2 / -1;
            let remainder = (-2147483647 - 1) * (-2147483647 - 1) * 2 % -1;
            // i32 arithmetic wraps, on the GPU and in the interpreter: 2^32 + 7 is 7.
            let seven = 65536 * 65536 + 7;
            x.tile([0], [64]).store(splat::<i32>(negated + divided + remainder + seven, [64]));
        }
    };
    let file = expand(attr, item);
    assert_eq!(errors(&file), Vec::<String>::new());
    let ptx = ptx_of(&file, "wraps");
    assert!(ptx.contains(", 7;"), "{ptx}");
    assert!(!ptx.contains("4294967303"), "{ptx}");
}

/// A kernel of several devices: a per-rank array, a `#[peers]` array copied by TMA from a peer,
/// `#[peers]` counters and a scalar.
fn ring() -> (TokenStream, TokenStream) {
    let attr = quote!(grid = (M / 64), devices = 4);
    let item = quote! {
        fn ring(x: Gmem<f32, M, 64>, #[peers] buf: GmemMut<f32, S, 64>, #[peers] sems: GmemMut<u32, T>, alpha: f32) {
            let i = program_id(0);
            let next = (device_id() + 1) % 4;
            run_scoped(|t: Smem<f32, 64, 64>, bar: Barrier| {
                copy_gmem_to_smem(remote(buf, next).tile([i, 0]), t, bar);
                barrier_wait(bar);
                remote(buf, next).tile([i, 0], [64, 64]).store(t.load(Layout::Strided) * alpha);
                semaphore_signal(remote(sems, next), i);
                semaphore_wait(sems, i);
            });
        }
    };
    (attr, item)
}

#[test]
fn a_kernel_of_several_devices_launches_on_a_group() {
    let (attr, item) = ring();
    let file = expand(attr, item);
    assert_eq!(errors(&file), Vec::<String>::new());
    let items = module(&file, "ring");
    let p = quote!(::tessel::__private);
    let (f32, u32) = (quote!(::core::primitive::f32), quote!(::core::primitive::u32));
    let expected = quote! {
        fn launch(group: &#p::DeviceGroup, x: &[impl #p::AsDeviceView<#f32>], buf: &mut #p::SymmetricTensor<#f32>,
            sems: &mut #p::SymmetricTensor<#u32>, alpha: #f32) -> ::tessel::Result<()>
    };
    assert_eq!(signature(function(items, "launch")), normalized(expected));
    let expected = quote! {
        fn interpret(x: &[#p::HostTensor<#f32>], buf: &mut [#p::HostTensor<#f32>], sems: &mut [#p::HostTensor<#u32>],
            alpha: #f32) -> ::tessel::Result<()>
    };
    assert_eq!(signature(function(items, "interpret")), normalized(expected));
    let body = function(items, "launch").block.to_token_stream().to_string();
    // Every rank is checked, and prepared, before the loop that launches.
    let order = [
        "check_group (\"ring\" , group , 4usize)",
        "check_rank_count (\"x\" , group , x . len ())",
        "group . check_symmetric (\"buf\" , & * buf)",
        "check_rank_shape (\"x\" , rank",
        "self :: check_args (x [rank] . shape () , buf . shape () , sems . shape () , alpha)",
        "symmetric_tensor_maps (& * buf , \"buf\"",
        "Module :: load (device",
        "unsafe { :: tessel :: __private :: launch (device",
    ];
    let positions: Vec<usize> =
        order.iter().map(|needle| body.find(needle).unwrap_or_else(|| panic!("no `{needle}` in {body}"))).collect();
    assert!(positions.windows(2).all(|w| w[0] < w[1]), "out of order: {body}");
    // The ABI's order: parameters, dimensions, tensor maps, the rank, each `#[peers]` array's copies.
    let args = body.split("let args = [").nth(1).expect("an argument array");
    let args = args.split("] ;").next().unwrap_or_default();
    let order = [
        "Ptr (ptr_x)",
        "Ptr (buf . peer_ptr (rank))",
        "Ptr (sems . peer_ptr (rank))",
        "F32 (alpha)",
        "dims [0usize]",
        "maps [0usize]",
        "U32 (rank as",
        "Ptrs (peers_1 . clone ())",
        "Ptrs (peers_2 . clone ())",
    ];
    let positions: Vec<usize> =
        order.iter().map(|needle| args.find(needle).unwrap_or_else(|| panic!("no `{needle}` in {args}"))).collect();
    assert!(positions.windows(2).all(|w| w[0] < w[1]), "out of ABI order: {args}");
}

#[test]
fn a_rejected_kernel_of_several_devices_keeps_the_group_signatures() {
    let attr = quote!(grid = (M / 64), devices = 2);
    let item = quote! {
        fn broken(x: Gmem<f32, M, 64>, #[peers] buf: GmemMut<f32, M, 64>) {
            remote(buf, 2).tile([0, 0], [64, 64]).store(x.tile([0, 0], [64, 64]).load(Layout::Strided));
        }
    };
    let file = expand(attr, item);
    assert_eq!(errors(&file).len(), 1);
    let launch = signature(function(module(&file, "broken"), "launch"));
    assert!(launch.contains("group : & :: tessel :: __private :: DeviceGroup"), "{launch}");
    assert!(launch.contains("buf : & mut :: tessel :: __private :: SymmetricTensor"), "{launch}");
    assert!(launch.contains("x : & [impl :: tessel :: __private :: AsDeviceView"), "{launch}");
}
