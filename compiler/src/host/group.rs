//! `launch` and `interpret` of a kernel of several devices (`devices = W`): the kernel runs on a
//! `DeviceGroup` of `W` devices, each rank with its own arguments.
//!
//! ```text
//! pub fn launch(group: &DeviceGroup, x: &[impl AsDeviceView<T>], buf: &mut SymmetricTensor<T>, alpha: f32) -> Result<()>;
//! pub fn interpret(x: &[HostTensor<T>], buf: &mut [HostTensor<T>], alpha: f32) -> Result<()>;
//! ```
//!
//! A global array takes one tensor per rank (rank `r`'s on `group.device(r)`), a `#[peers]` array
//! a `SymmetricTensor` of the group, a scalar one value for every rank. `launch` works in three
//! passes, so that nothing launches unless every rank can:
//! 1. check: the group's size is `W`, each array has one tensor per rank, each symmetric tensor is
//!    the group's; then per rank, each tensor has rank 0's shape, the rank's arguments pass
//!    `check_args` (as a one-device launch's), and each tensor is on the rank's device;
//! 2. prepare, per rank: the tensor maps (a `#[peers]` array's over every rank's copy, for the TMA
//!    copies of `remote(..)` tiles) and the module on the rank's device;
//! 3. launch, per rank on its device's stream: the pointers (holding their guards), the arguments
//!    in the ABI's order (`Program::abi`: the rank and every `#[peers]` array's copies last).
//!
//! Like a one-device launch it is asynchronous: `group.synchronize()` (or reading a tensor back)
//! waits for every rank.

use super::interpret::program_static;
use super::local;
use super::params::{HostKind, HostParam};
use crate::diag::Ctxt;
use crate::syntax::ast::Kernel;
use crate::types::Swizzle;
use proc_macro2::TokenStream;
use quote::quote;
use tessel_ir::program::{AbiParam, Program};

/// `pub fn launch(group, <per-rank tensors, symmetric tensors and scalars>) -> Result<()>`.
pub(crate) fn launch(ctx: &Ctxt, kernel: &Kernel, program: &Program, params: &[HostParam]) -> TokenStream {
    let w = program.device_count();
    let decls = params.iter().map(|p| p.declare(p.group_type()));
    let (group, plans, prepared) = (local("group"), local("plans"), local("prepared"));
    let whole = whole_group_checks(params, &group);
    let per_rank = rank_checks(params, &group, &plans);
    let (shared, maps) = tensor_maps(ctx, kernel, program, params);
    let nothing = (!program.ragged.is_empty())
        .then(|| quote!(if #plans[0].launches_nothing() { return ::core::result::Result::Ok(()); }));
    let launches = launches(program, params, (&group, &plans, &prepared));
    let entry = &program.name;
    let n_maps = program.tensor_maps.len();
    quote! {
        /// Launches the kernel on every device of `group` (`devices = W`: the group has `W`
        /// devices), rank `r` on `group.device(r)`'s stream: a global array takes one tensor per
        /// rank (rank `r`'s on device `r`), a `#[peers]` array a `SymmetricTensor` of the group,
        /// a scalar one value for every rank. Checks every rank's arguments first (the group's
        /// size, one tensor per rank of one shape on every rank, each on its rank's device, each
        /// symmetric tensor the group's, and each rank's `check_args`), then encodes every rank's
        /// tensor maps and loads its module: every failure is an `Err`, and nothing is launched
        /// then. The launches are asynchronous: `group.synchronize()` waits for them.
        #[allow(clippy::too_many_arguments)]
        pub fn launch(
            #group: &::tessel::__private::DeviceGroup,
            #(#decls),*
        ) -> ::tessel::Result<()> {
            ::tessel::__private::check_group(#entry, #group, #w)?;
            #(#whole)*
            let mut #plans = ::std::vec::Vec::with_capacity(#w);
            #per_rank
            #nothing
            #(#shared)*
            let mut #prepared = ::std::vec::Vec::with_capacity(#w);
            for rank in 0..#w {
                let device = #group.device(rank);
                let maps: [::tessel::__private::KernelArg; #n_maps] = [#(#maps),*];
                let module = ::tessel::__private::Module::load(device, self::PTX, self::ENTRY)?;
                #prepared.push((module, maps));
            }
            #launches
            ::core::result::Result::Ok(())
        }
    }
}

/// The tensor parameters, with whether each is written and whether it is `#[peers]`.
fn tensors<'a, 'k>(params: &'a [HostParam<'k>]) -> impl Iterator<Item = (&'a HostParam<'k>, bool, bool)> {
    params.iter().filter_map(|p| match p.kind {
        HostKind::Tensor { mutable, peers, .. } => Some((p, mutable, peers)),
        HostKind::Scalar { .. } => None,
    })
}

/// The checks of the whole group's arguments: each per-rank array has one tensor per rank (then
/// it is rebound to the views its tensors lend), each symmetric tensor is the group's.
fn whole_group_checks(params: &[HostParam], group: &syn::Ident) -> Vec<TokenStream> {
    tensors(params)
        .map(|(p, mutable, peers)| {
            let (name, text) = (p.name, p.name.to_string());
            match (peers, mutable) {
                (true, _) => quote!(#group.check_symmetric(#text, &*#name)?;),
                (false, false) => quote! {
                    ::tessel::__private::check_rank_count(#text, #group, #name.len())?;
                    let #name: ::std::vec::Vec<_> =
                        #name.iter().map(::tessel::__private::AsDeviceView::as_view).collect();
                },
                (false, true) => quote! {
                    ::tessel::__private::check_rank_count(#text, #group, #name.len())?;
                    let mut #name: ::std::vec::Vec<_> =
                        #name.iter_mut().map(::tessel::__private::AsDeviceViewMut::as_view_mut).collect();
                },
            }
        })
        .collect()
}

/// Per rank: each tensor has rank 0's shape, the rank's arguments pass `check_args` (whose plans
/// `plans` collects), and each tensor lives on the rank's device.
fn rank_checks(params: &[HostParam], group: &syn::Ident, plans: &syn::Ident) -> TokenStream {
    let same_shapes = tensors(params).filter(|(_, _, peers)| !peers).map(|(p, _, _)| {
        let (name, text) = (p.name, p.name.to_string());
        quote!(::tessel::__private::check_rank_shape(#text, rank, #name[0].shape(), #name[rank].shape())?;)
    });
    let shapes = params.iter().map(|p| {
        let name = p.name;
        match p.kind {
            HostKind::Tensor { peers: false, .. } => quote!(#name[rank].shape()),
            HostKind::Tensor { peers: true, .. } => quote!(#name.shape()),
            HostKind::Scalar { .. } => quote!(#name),
        }
    });
    let devices = tensors(params).filter(|(_, _, peers)| !peers).map(|(p, _, _)| {
        let (name, text) = (p.name, p.name.to_string());
        quote!(#name[rank].check_device(#text, cu_stream)?;)
    });
    quote! {
        for rank in 0..#group.len() {
            #(#same_shapes)*
            #plans.push(self::check_args(#(#shapes),*)?);
            let cu_stream = ::tessel::__private::AsStream::as_stream(#group.device(rank));
            #(#devices)*
        }
    }
}

/// The statements encoding what every rank shares (each `#[peers]` array's maps over every
/// rank's copy), and per tensor map of `Program::tensor_maps` the expression of rank `rank`'s
/// `KernelArg`.
fn tensor_maps(
    ctx: &Ctxt,
    kernel: &Kernel,
    program: &Program,
    params: &[HostParam],
) -> (Vec<TokenStream>, Vec<TokenStream>) {
    let (mut shared, mut per_rank) = (Vec::new(), Vec::new());
    for (i, map) in program.tensor_maps.iter().enumerate() {
        let Some(param) = params.get(map.param) else {
            ctx.internal(kernel.name.span(), format!("tensor map {i} names parameter {}", map.param));
            continue;
        };
        let (name, text) = (param.name, param.name.to_string());
        let boxed: Vec<u32> = map.box_shape.iter().map(|&b| u32::try_from(b).unwrap_or(0)).collect();
        let swizzle = swizzle(map.swizzle);
        let peers = matches!(param.kind, HostKind::Tensor { peers: true, .. });
        let arg = quote!(::tessel::__private::KernelArg);
        per_rank.push(match (map.peers, peers) {
            (true, _) => {
                let all = local(&format!("maps_{i}"));
                shared.push(quote! {
                    let #all = ::tessel::__private::symmetric_tensor_maps(&*#name, #text, &[#(#boxed),*], #swizzle)?;
                });
                quote!(#arg::TensorMaps(#all.clone()))
            }
            (false, true) => quote! {
                #arg::TensorMap(::tessel::__private::symmetric_tensor_map(&*#name, #text, rank, &[#(#boxed),*], #swizzle)?)
            },
            (false, false) => {
                quote!(#arg::TensorMap(#name[rank].tensor_map_cached(#text, &[#(#boxed),*], #swizzle)?))
            }
        });
    }
    (shared, per_rank)
}

fn swizzle(s: Swizzle) -> TokenStream {
    match s {
        Swizzle::None => quote!(::tessel::__private::Swizzle::None),
        Swizzle::B32 => quote!(::tessel::__private::Swizzle::B32),
        Swizzle::B64 => quote!(::tessel::__private::Swizzle::B64),
        Swizzle::B128 => quote!(::tessel::__private::Swizzle::B128),
    }
}

/// The third pass: per rank, the pointers (and their guards), the arguments in ABI order, the
/// launch on the rank's device; the guards go once it is queued.
fn launches(
    program: &Program,
    params: &[HostParam],
    (group, plans, prepared): (&syn::Ident, &syn::Ident, &syn::Ident),
) -> TokenStream {
    let pointers = tensors(params).filter(|(_, _, peers)| !peers).map(|(p, mutable, _)| {
        let (name, ptr, guard) = (p.name, local(&format!("ptr_{}", p.name)), local(&format!("guard_{}", p.name)));
        let take = if mutable { quote!(device_ptr_mut) } else { quote!(device_ptr) };
        quote!(let (#ptr, #guard) = #name[rank].#take(cu_stream);)
    });
    let guards: Vec<syn::Ident> =
        tensors(params).filter(|(_, _, peers)| !peers).map(|(p, _, _)| local(&format!("guard_{}", p.name))).collect();
    let peers = params.iter().enumerate().filter(|(_, p)| matches!(p.kind, HostKind::Tensor { peers: true, .. }));
    let peer_tables: Vec<TokenStream> = peers
        .clone()
        .map(|(i, p)| {
            let (name, table) = (p.name, local(&format!("peers_{i}")));
            quote!(let #table = ::tessel::__private::peer_ptrs(&*#name);)
        })
        .collect();
    let args = abi_args(program, params, plans);
    // Safety of the `unsafe` call, obligation by obligation (`tessel_runtime::launch`), as for a
    // one-device launch (`host::launch`), with, for a kernel of several devices:
    // - argument order and types: `abi_args` follows `Program::abi`, the order of the PTX's entry;
    //   the rank is a `u32`, and each `#[peers]` array's addresses are `W` `u64`s and its maps of
    //   peers' tiles `W` maps, as the entry declares them (`W` is the group's size, checked);
    // - live allocations: each rank's tensors are views borrowed for the whole call, on the rank's
    //   device (`check_device`), whose guards are dropped only after its launch is queued; a
    //   symmetric tensor, borrowed for the call too, is the group's (`check_symmetric`), so every
    //   rank's copy is mapped on every device of the group, and dropping it waits for every
    //   rank's stream;
    // - bounds: each rank's shapes passed `check_args`, and every rank's shapes are rank 0's, so a
    //   peer's copy has the shape this rank's program indexes; a rank outside the group traps
    //   (`ptx::devices`) rather than forming an address;
    // - no aliasing of written buffers: per-rank written tensors are `&mut` slices of views, and a
    //   symmetric tensor the kernel writes is `&mut`; what ranks write into each other's copies is
    //   the kernel's synchronization to get right (the `sync` stage checks its publication).
    quote! {
        #(#peer_tables)*
        for (rank, (module, maps)) in #prepared.into_iter().enumerate() {
            let device = #group.device(rank);
            let cu_stream = ::tessel::__private::AsStream::as_stream(device);
            #(#pointers)*
            let args = [#(#args),*];
            let launched = unsafe { ::tessel::__private::launch(device, &module, &#plans[rank].config, &args) };
            ::core::mem::drop((#(#guards,)*));
            launched?;
        }
    }
}

/// Rank `rank`'s arguments in the ABI's order.
fn abi_args(program: &Program, params: &[HostParam], plans: &syn::Ident) -> Vec<TokenStream> {
    let arg = quote!(::tessel::__private::KernelArg);
    let one = |p: AbiParam| match p {
        AbiParam::Param(i) => match params.get(i).map(|p| (p.name, &p.kind)) {
            Some((name, HostKind::Tensor { peers: false, .. })) => {
                let ptr = local(&format!("ptr_{name}"));
                quote!(#arg::Ptr(#ptr))
            }
            Some((name, HostKind::Tensor { peers: true, .. })) => quote!(#arg::Ptr(#name.peer_ptr(rank))),
            Some((name, HostKind::Scalar { scalar, .. })) => scalar.kernel_arg(name),
            // `host_params` reported the parameter it could not represent.
            None => TokenStream::new(),
        },
        AbiParam::Dim(i) => quote!(#arg::I32(#plans[rank].dims[#i])),
        AbiParam::TensorMap(i) => quote!(maps[#i].clone()),
        AbiParam::DeviceRank => quote!(#arg::U32(rank as ::core::primitive::u32)),
        AbiParam::Peers(i) => {
            let table = local(&format!("peers_{i}"));
            quote!(#arg::Ptrs(#table.clone()))
        }
    };
    program.abi().map(one).collect()
}

/// `static PROGRAM` and `pub fn interpret(<per-rank host tensors and scalars>) -> Result<()>`.
pub(crate) fn interpret(params: &[HostParam], program: &[u8]) -> TokenStream {
    let decls = params.iter().map(|p| p.declare(p.group_host_type()));
    let interp = quote!(::tessel::__private::interp);
    let args = params.iter().map(|p| {
        let name = p.name;
        match &p.kind {
            HostKind::Tensor { mutable: false, .. } => {
                quote!(#interp::GroupArg::Tensors(#name.iter().map(|t| t as &dyn #interp::HostArray).collect()))
            }
            HostKind::Tensor { mutable: true, .. } => quote! {
                #interp::GroupArg::TensorsMut(#name.iter_mut().map(|t| t as &mut dyn #interp::HostArray).collect())
            },
            HostKind::Scalar { scalar, .. } => {
                let value = scalar.interp_arg(name);
                quote!(#interp::GroupArg::Scalar(#value))
            }
        }
    });
    let program = program_static(program);
    quote! {
        #program

        /// Runs the kernel on the CPU for every device of a group of `W` (`devices = W`), in one
        /// schedule: a global array takes one host tensor per rank (rank `r`'s at `r`; a
        /// `#[peers]` array's copies too), a scalar one value for every rank. Checks every rank's
        /// arguments as `launch` does (one tensor per rank, one shape on every rank, each rank's
        /// `check_args`), then runs, and writes the written tensors back once every program of
        /// every device has finished. Semaphores between devices make progress as on a group of
        /// GPUs; a wait that nothing signals, a data race (an access of another device's memory
        /// that nothing orders, a TMA store into a peer's memory published before it completed)
        /// is an `Error::Interpreter`.
        #[allow(clippy::too_many_arguments)]
        pub fn interpret(#(#decls),*) -> ::tessel::Result<()> {
            #interp::interpret_group(&self::PROGRAM, ::std::vec![#(#args),*])
        }
    }
}
