//! `check_args` and `launch`: the typed launch function of a kernel and the checks it makes before
//! anything reaches the GPU.
//!
//! The order of a launch (tessel_runtime's `launch` module doc): check ranks and static dimensions,
//! bind runtime dimensions, check divisibility, evaluate the grid (`check_args`, which needs no
//! GPU); then check devices, encode tensor maps, load the module, take device pointers (holding
//! their guards), and launch with the arguments in the order of the kernel ABI (`crate::ptx`).
//! Tensors arrive as anything that lends a view (`AsDeviceView`: a `DeviceTensor`, a `DeviceView`,
//! a `DeviceViewMut`), and every step reads the view.

use super::grid;
use super::local;
use super::params::{HostKind, HostParam};
use crate::diag::Ctxt;
use crate::syntax::ast::Kernel;
use crate::types::Swizzle;
use proc_macro2::TokenStream;
use quote::quote;
use tessel_ir::program::{AbiParam, ParamKind, Program};

/// `pub fn check_args(<shapes and scalars>) -> Result<LaunchPlan<DIMS>>`.
pub(crate) fn check_args(ctx: &Ctxt, kernel: &Kernel, program: &Program, params: &[HostParam]) -> TokenStream {
    let decls = params.iter().map(|p| p.declare(p.shape_type()));
    let dims_var = local("dims");
    let binds = params.iter().zip(&program.params).filter_map(|(p, info)| {
        let ParamKind::Gmem { shape, .. } = &info.kind else { return None };
        let (name, text) = (p.name, p.name.to_string());
        let shape = shape.iter().map(|d| super::signature::dim(program, *d));
        Some(quote!(::tessel::__private::bind_shape(&mut #dims_var, #text, #name, &[#(#shape),*])?;))
    });
    let dim_names = &program.runtime_dims;
    let dim_locals: Vec<_> = dim_names.iter().map(|d| local(&format!("dim_{d}"))).collect();
    let divisible = program.divisibility.iter().map(|(dim, tile, why)| {
        let (name, value) = (&dim_names[*dim], &dim_locals[*dim]);
        quote!(::tessel::__private::check_divisible(#name, #value, #tile, #why)?;)
    });
    let ragged = program.ragged.iter().map(|dim| {
        let (name, value) = (&dim_names[*dim], &dim_locals[*dim]);
        quote!(::tessel::__private::check_ragged(#name, #value)?;)
    });
    let grid = grid::grid(ctx, kernel, program, params);
    let block = 128 * program.warpgroups as u32;
    // At most sm_90's 232448 bytes: typeck's A9 checked the total.
    let smem = u32::try_from(program.dynamic_smem_bytes).unwrap_or(u32::MAX);
    let cluster = program.cluster.map(|c| c as u32);
    let n_dims = dim_names.len();
    let dims_i32 = quote!([#(::tessel::__private::dim_i32(#dim_names, #dim_locals)?),*]);
    let empty = empty_launch(program, params, &dim_locals, &quote!([#block, 1, 1]), smem, &dims_i32);
    quote! {
        /// Checks a launch's arguments against the kernel's signature before anything reaches the
        /// GPU: each tensor's rank and static dimensions, the runtime dimensions (equal wherever
        /// they appear), the divisibility the kernel's tiles need (or the room the ragged
        /// dimensions' last tiles need), and the grid. Takes each
        /// tensor's shape, so it runs without a GPU; `launch` and `interpret` call it first.
        /// Returns the launch configuration and the runtime dimensions in `SIGNATURE` order
        /// (a plan of no programs when a ragged dimension is 0 and every written array empty).
        #[allow(unused_variables, unused_mut, clippy::too_many_arguments)]
        pub fn check_args(#(#decls),*) -> ::tessel::Result<::tessel::__private::LaunchPlan<#n_dims>> {
            let mut #dims_var = ::tessel::__private::Dims::new();
            #(#binds)*
            #(let #dim_locals: ::core::primitive::usize = #dims_var.get(#dim_names)?;)*
            #(#divisible)*
            #(#ragged)*
            #empty
            ::tessel::__private::LaunchPlan::new(
                self::ENTRY,
                #grid,
                [#block, 1, 1],
                #smem,
                [#(#cluster),*],
                #dims_i32,
            )
        }
    }
}

/// For a kernel with `ragged(..)` dimensions: `check_args` returns a plan of no programs when one
/// of them is 0 and every written array is empty (`launches_nothing`), before the grid (whose
/// extents would be 0) is evaluated.
fn empty_launch(
    program: &Program,
    params: &[HostParam],
    dim_locals: &[syn::Ident],
    block: &TokenStream,
    smem: u32,
    dims_i32: &TokenStream,
) -> TokenStream {
    if program.ragged.is_empty() {
        return TokenStream::new();
    }
    let ragged = program.ragged.iter().map(|&d| &dim_locals[d]);
    let written = tensors(params).filter(|(_, mutable)| *mutable).map(|(p, _)| p.name);
    quote! {
        if ::tessel::__private::launches_nothing(&[#(#ragged),*], &[#(#written),*]) {
            return ::core::result::Result::Ok(::tessel::__private::LaunchPlan::nothing(#block, #smem, #dims_i32));
        }
    }
}

/// `pub fn launch(stream, <tensors and scalars>) -> Result<()>`.
pub(crate) fn launch(ctx: &Ctxt, kernel: &Kernel, program: &Program, params: &[HostParam]) -> TokenStream {
    let decls = params.iter().map(|p| p.declare(p.device_type()));
    let (stream, cu_stream, plan, module, args) =
        (local("stream"), local("cu_stream"), local("plan"), local("module"), local("args"));
    let views = tensors(params).map(|(p, mutable)| view(p.name, mutable));
    let shapes = params.iter().map(|p| shape_of(p));
    let checks = tensors(params).map(|(p, _)| {
        let (name, text) = (p.name, p.name.to_string());
        quote!(#name.check_device(#text, #cu_stream)?;)
    });
    let (maps, map_args) = tensor_maps(ctx, kernel, program, params);
    let (pointers, guards) = pointers(params);
    let abi_args = abi_args(program, params, &plan, &map_args);
    let queue = queue(&stream, &module, &plan, &args, &guards);
    // An empty batch (`empty_launch`) returns before anything reaches the driver.
    let nothing = (!program.ragged.is_empty())
        .then(|| quote!(if #plan.launches_nothing() { return ::core::result::Result::Ok(()); }));
    quote! {
        /// Launches the kernel on `stream` (a `Device` or a cudarc stream). A global array is a
        /// `&DeviceTensor` or a view of part of a buffer (`&DeviceView`; `&mut DeviceTensor` or
        /// `&mut DeviceViewMut` where the kernel writes it). Checks the arguments first
        /// (`check_args`); every failure is an `Err`, and nothing is launched then, nor when a
        /// `ragged(..)` dimension is 0 and every written array is empty (`Ok`). The
        /// launch is asynchronous: a fault inside the kernel surfaces at the next synchronizing
        /// call (`Device::synchronize`, `DeviceTensor::to_host`).
        #[allow(clippy::too_many_arguments)]
        pub fn launch(
            #stream: &impl ::tessel::__private::AsStream,
            #(#decls),*
        ) -> ::tessel::Result<()> {
            #(#views)*
            let #plan = self::check_args(#(#shapes),*)?;
            #nothing
            let #cu_stream = ::tessel::__private::AsStream::as_stream(#stream);
            #(#checks)*
            #(#maps)*
            let #module = ::tessel::__private::Module::load(#stream, self::PTX, self::ENTRY)?;
            #(#pointers)*
            let #args = [#(#abi_args),*];
            #queue
        }
    }
}

/// The statement rebinding a tensor parameter to the view it lends (`AsDeviceView`): what the rest
/// of `launch` reads its shape, device, tensor maps and address from.
fn view(name: &syn::Ident, mutable: bool) -> TokenStream {
    if mutable {
        quote!(let mut #name = ::tessel::__private::AsDeviceViewMut::as_view_mut(#name);)
    } else {
        quote!(let #name = ::tessel::__private::AsDeviceView::as_view(#name);)
    }
}

/// The statements taking each tensor's device address for the launch stream (`device_ptr_mut` for
/// the written ones), and the guards they bind.
fn pointers(params: &[HostParam]) -> (Vec<TokenStream>, Vec<syn::Ident>) {
    tensors(params)
        .map(|(p, mutable)| {
            let (name, ptr, guard) = (p.name, local(&format!("ptr_{}", p.name)), local(&format!("guard_{}", p.name)));
            let (take, cu_stream) =
                (if mutable { quote!(device_ptr_mut) } else { quote!(device_ptr) }, local("cu_stream"));
            (quote!(let (#ptr, #guard) = #name.#take(#cu_stream);), guard)
        })
        .unzip()
}

/// The launch call, then the guards' release: they order other streams' uses of the buffers after
/// this launch, so they go only once it is queued.
fn queue(
    stream: &syn::Ident,
    module: &syn::Ident,
    plan: &syn::Ident,
    args: &syn::Ident,
    guards: &[syn::Ident],
) -> TokenStream {
    // Safety of the generated `unsafe` call, obligation by obligation (`tessel_runtime::launch`):
    // - argument number, order and types: `abi_args` follows `Program::abi`, the order in which
    //   the PTX writer declared the entry's parameters in `PTX` from the same program; scalars have
    //   the ABI's types by construction;
    // - live allocations: every pointer comes from `device_ptr`/`device_ptr_mut` of a view whose
    //   buffer is borrowed for the whole call, on the launch stream's device (`check_device`), and
    //   its guard is dropped only after the launch is queued;
    // - bounds: each tensor's shape was checked against the signature (`check_args`), tiles cover
    //   the runtime dimensions exactly (or overhang the ragged ones), and those dimensions are
    //   passed to the kernel; TMA clips boxes at the tensor map's bounds. A grid the user wrote
    //   larger than the arrays would make plain (non-TMA) global accesses of the extra programs
    //   (and of a ragged dimension's last tile) out of bounds, and so would a semaphore index
    //   outside its array, unless the PTX predicates them on the dimensions: that is the PTX
    //   writer's obligation;
    // - no aliasing of written buffers: the kernel writes only `GmemMut` parameters, which are
    //   `&mut impl AsDeviceViewMut`: a `DeviceTensor` or a `DeviceViewMut`, which borrows its
    //   buffer mutably, so Rust's borrows forbid passing a written buffer (or part of it) twice;
    //   every view's shape was checked to hold exactly its elements when it was made;
    // - tensor maps: encoded here over the same tensors, with the box and swizzle the checker
    //   recorded for the PTX (`Program::tensor_maps`).
    let call = quote!(unsafe { ::tessel::__private::launch(#stream, &#module, &#plan.config, &#args) });
    if guards.is_empty() {
        return call;
    }
    let launched = local("launched");
    quote! {
        let #launched = #call;
        ::core::mem::drop((#(#guards,)*));
        #launched
    }
}

/// A parameter as `check_args` takes it: a tensor's shape, or the scalar itself.
fn shape_of(p: &HostParam) -> TokenStream {
    let name = p.name;
    match p.kind {
        HostKind::Tensor { .. } => quote!(#name.shape()),
        HostKind::Scalar { .. } => quote!(#name),
    }
}

/// The tensor parameters, with whether each is written.
fn tensors<'a, 'k>(params: &'a [HostParam<'k>]) -> impl Iterator<Item = (&'a HostParam<'k>, bool)> {
    params.iter().filter_map(|p| match p.kind {
        HostKind::Tensor { mutable, .. } => Some((p, mutable)),
        HostKind::Scalar { .. } => None,
    })
}

/// The statements encoding each tensor map of `Program::tensor_maps`, and the `KernelArg`s passing
/// them. Maps are cached in the tensor they describe, so only the first launch encodes.
fn tensor_maps(
    ctx: &Ctxt,
    kernel: &Kernel,
    program: &Program,
    params: &[HostParam],
) -> (Vec<TokenStream>, Vec<TokenStream>) {
    let mut encode = Vec::new();
    let mut args = Vec::new();
    for (i, map) in program.tensor_maps.iter().enumerate() {
        let internal = |what: String| ctx.internal(kernel.name.span(), what);
        let Some(param) = params.get(map.param) else {
            internal(format!("tensor map {i} names parameter {} of {}", map.param, params.len()));
            continue;
        };
        let (name, text, var) = (param.name, param.name.to_string(), local(&format!("map_{i}")));
        let boxed: Vec<u32> = map.box_shape.iter().map(|&b| u32::try_from(b).unwrap_or(0)).collect();
        if boxed.contains(&0) {
            internal(format!("tensor map {i} has the box {:?}", map.box_shape));
        }
        let swizzle = match map.swizzle {
            Swizzle::None => quote!(None),
            Swizzle::B32 => quote!(B32),
            Swizzle::B64 => quote!(B64),
            Swizzle::B128 => quote!(B128),
        };
        encode.push(quote! {
            let #var = #name.tensor_map_cached(#text, &[#(#boxed),*], ::tessel::__private::Swizzle::#swizzle)?;
        });
        args.push(quote!(::tessel::__private::KernelArg::TensorMap(#var)));
    }
    (encode, args)
}

/// The kernel's arguments in the ABI's order (`Program::abi`): each parameter (pointers and
/// scalars), then each runtime dimension as `.s32`, then each tensor map.
fn abi_args(program: &Program, params: &[HostParam], plan: &syn::Ident, maps: &[TokenStream]) -> Vec<TokenStream> {
    let arg = |p: AbiParam| match p {
        AbiParam::Param(i) => match params.get(i).map(|p| (p.name, &p.kind)) {
            Some((name, HostKind::Tensor { .. })) => {
                let ptr = local(&format!("ptr_{name}"));
                quote!(::tessel::__private::KernelArg::Ptr(#ptr))
            }
            Some((name, HostKind::Scalar { scalar, .. })) => scalar.kernel_arg(name),
            // `host_params` reported the parameter it could not represent.
            None => TokenStream::new(),
        },
        AbiParam::Dim(i) => quote!(::tessel::__private::KernelArg::I32(#plan.dims[#i])),
        AbiParam::TensorMap(i) => maps.get(i).cloned().unwrap_or_default(),
        // A kernel of several devices is launched on a group (`group`), never through here.
        AbiParam::DeviceRank | AbiParam::Peers(_) => TokenStream::new(),
    };
    program.abi().map(arg).collect()
}
