//! What a generic kernel expands to (`crate::generic`): a zero-sized generic struct named like the
//! kernel, whose associated items are those of a plain kernel's module, per instance.
//!
//! ```text
//! mod __tessel_matmul {                                        // hidden
//!     pub struct matmul<T: Element, const BN: usize> { .. }  // never constructed
//!     #[diagnostic::on_unimplemented(..)]                      // the error at an undeclared call
//!     pub trait Instance<T: Element, const BN: usize> { SIGNATURE, PTX, ENTRY, check_args, launch, interpret }
//!     mod __instance_0 { <the items of a plain kernel's module, for matmul::<bf16, 256>> }
//!     impl Instance<bf16, 256> for matmul<bf16, 256> { .. forwards to __instance_0 .. }
//!     impl<T, const BN: usize> matmul<T, BN> {
//!         pub fn launch(stream, a: &impl AsDeviceView<T>, ..) -> Result<()> where Self: Instance<T, BN>;
//!         ..
//!     }
//!     impl<T, const BN: usize> matmul<T, BN> where Self: Instance<T, BN> { pub const PTX: Ptx; .. }
//! }
//! pub use __tessel_matmul::matmul;                             // with the function's visibility
//! ```
//!
//! Everything lives in the hidden module and names its items through `self::`, so that the
//! expansion works in a function body as well as in a module (a `super::` path would leave the
//! block), and neither the user's items nor a generic parameter's name can shadow the trait or an
//! instance's module.
//!
//! So `matmul::<bf16, 256>::launch(..)` is the instance's launch, and a call of an instance the
//! attribute does not list fails to prove `matmul<f32, 64>: Instance<f32, 64>`, which rustc reports
//! at the call with the trait's `on_unimplemented` message. The bounds sit on the functions rather
//! than on their impl because rustc then reports E0277, which uses that message as written (a
//! bound on the impl gives E0599, which adds advice about implementing the trait); associated
//! consts cannot have bounds of their own, so theirs is on their impl.
//!
//! The parameters' host types come from the instances (`shape`): a parameter whose dtype is a type
//! parameter's value in every instance is written with that parameter (`&impl AsDeviceView<T>`).
//!
//! Where `#[when(..)]` on a parameter gives the instances different parameter lists (or different
//! runtime dimensions), no one generic signature fits them all: then `check_args`, `launch` and
//! `interpret` are each instance's own (`per_instance`), in an inherent impl of that instance
//! (`impl matmul<bf16, 256> { pub fn launch(..) }`), while `PTX`, `ENTRY` and `SIGNATURE` stay
//! generic. A call of an undeclared instance's `launch` is then rustc's "no function `launch` found
//! for `matmul<f32, 64>`", which lists the declared instances.

pub(crate) use super::generic_fallback::fallback;
use super::params::{element_type, Scalar};
use super::{forwarded_attrs, local, per_instance};
use crate::codes::Code;
use crate::generic::decl::{Instance, Kind, Param, Value};
use crate::syntax::ast::{Kernel, ParamTy};
use crate::typeck::Facts;
use crate::types::DType;
use proc_macro2::{Literal, Span, TokenStream};
use quote::{format_ident, quote, quote_spanned, ToTokens as _};
use syn::Ident;

/// The host side of a generic kernel's signatures: one that every instance shares, or, where
/// `#[when(..)]` leaves parameters out of some instances, each instance's (by its values).
pub(crate) enum Shape {
    Shared(HostSig),
    PerInstance(Vec<(Vec<Value>, HostSig)>),
}

/// A host signature: each parameter as the generated functions take it, in terms of the generic
/// parameters, and how many runtime dimensions `check_args` returns.
pub(crate) struct HostSig {
    pub(super) params: Vec<HostParam>,
    pub(super) n_dims: usize,
    /// A kernel of several devices (`devices = W`, in every instance alike): `launch` takes a
    /// `DeviceGroup` and per-rank arguments (`host::group`).
    pub(super) group: bool,
}

impl HostSig {
    /// The first parameter of `launch` (`stream`, or `group` for a kernel of several devices), as
    /// its forwarders name it.
    pub(super) fn target(&self) -> Ident {
        local(if self.group { "group" } else { "stream" })
    }
}

pub(super) struct HostParam {
    pub(super) name: Ident,
    /// `None` when no instance could read the parameter's type (only in a rejected kernel): the
    /// fallback then takes anything there.
    kind: Option<HostKind>,
}

#[derive(Clone, Copy)]
enum HostKind {
    Tensor { elem: Elem, mutable: bool, peers: bool, span: Span },
    Scalar { elem: Elem, span: Span },
}

/// A parameter's element (or scalar) type: a generic type parameter (by index), or one dtype.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Elem {
    Param(usize),
    Dtype(DType),
}

/// One instance read: its kernel, what checking learned, its values.
pub(crate) type Model = (Kernel, Facts, Vec<Value>);

/// The host signatures of the kernel `func` with the generic parameters `generics`, read from the
/// instances `models`: one for all, unless their parameters or runtime dimensions differ; and, if
/// they disagree where they cannot (a parameter that is a tensor in one and a scalar in another),
/// what disagrees: an internal error for a kernel that passed checking.
pub(crate) fn shape(func: &syn::ItemFn, generics: &[Param], models: &[Model]) -> (Shape, Option<String>) {
    let left_out = |m: &Model, name: &Ident| m.0.left_out.contains(name);
    let names = func.sig.inputs.iter().filter_map(|arg| match arg {
        syn::FnArg::Typed(pt) => match &*pt.pat {
            syn::Pat::Ident(pi) => Some(&pi.ident),
            _ => None,
        },
        syn::FnArg::Receiver(_) => None,
    });
    let params_differ = names.clone().any(|n| models.iter().any(|m| left_out(m, n) != left_out(&models[0], n)));
    let n_dims = models.first().map_or(0, |(_, facts, _)| facts.runtime_dims.len());
    let dims_differ = models.iter().any(|(_, facts, _)| facts.runtime_dims.len() != n_dims);
    if !params_differ && !dims_differ {
        let (sig, problem) = host_sig(func, generics, models);
        return (Shape::Shared(sig), problem);
    }
    let mut problem = None;
    let sigs = models
        .iter()
        .map(|model| {
            let (sig, found) = host_sig(func, generics, std::slice::from_ref(model));
            problem = problem.take().or(found);
            (model.2.clone(), sig)
        })
        .collect();
    (Shape::PerInstance(sigs), problem)
}

/// The one host signature of the instances `models`, which have the same parameters: those of
/// `func` less those every one of them leaves out.
fn host_sig(func: &syn::ItemFn, generics: &[Param], models: &[Model]) -> (HostSig, Option<String>) {
    let mut problem = None;
    let params = func
        .sig
        .inputs
        .iter()
        .enumerate()
        .filter(|(_, arg)| match arg {
            syn::FnArg::Typed(pt) => match &*pt.pat {
                syn::Pat::Ident(pi) => models.is_empty() || !models.iter().all(|m| m.0.left_out.contains(&pi.ident)),
                _ => true,
            },
            syn::FnArg::Receiver(_) => true,
        })
        .map(|(i, arg)| {
            let (name, ty) = match arg {
                syn::FnArg::Typed(pt) => match &*pt.pat {
                    syn::Pat::Ident(pi) => (pi.ident.clone(), Some(&*pt.ty)),
                    _ => (format_ident!("arg{}", i), None),
                },
                syn::FnArg::Receiver(_) => (format_ident!("arg{}", i), None),
            };
            let kind = ty.and_then(|ty| host_kind(&name, ty, generics, models, &mut problem));
            HostParam { name, kind }
        })
        .collect();
    let n_dims = models.first().map_or(0, |(_, facts, _)| facts.runtime_dims.len());
    let group = models.first().is_some_and(|(k, _, _)| k.attr.devices.is_some());
    (HostSig { params, n_dims, group }, problem)
}

/// How the parameter `name` (written with type `ty`) crosses from the host, from its type in each
/// instance that read it.
fn host_kind(
    name: &Ident,
    ty: &syn::Type,
    generics: &[Param],
    models: &[Model],
    problem: &mut Option<String>,
) -> Option<HostKind> {
    let read: Vec<(&ParamTy, &[Value])> = models
        .iter()
        .filter_map(|(k, _, values)| k.params.iter().find(|p| p.name == *name).map(|p| (&p.ty, values.as_slice())))
        .collect();
    let (first, _) = read.first()?;
    if read.len() != models.len() {
        *problem = Some(format!("the parameter `{name}` was read in some instances only"));
    }
    let dtypes: Vec<(DType, &[Value])> = read
        .iter()
        .map(|(ty, values)| match ty {
            ParamTy::Gmem { dtype, .. } | ParamTy::Scalar(dtype) => (dtype.value, *values),
        })
        .collect();
    let is_param = |k: usize| dtypes.iter().all(|(d, values)| values.get(k) == Some(&Value::Dtype(*d)));
    let named = named_param(ty, generics).filter(|&k| is_param(k));
    let constant = dtypes.iter().all(|(d, _)| *d == dtypes[0].0);
    let any_param = || (0..generics.len()).find(|&k| matches!(generics[k].kind, Kind::Dtype) && is_param(k));
    let elem = match (named, constant) {
        (Some(k), _) => Elem::Param(k),
        (None, true) => Elem::Dtype(dtypes[0].0),
        (None, false) => any_param().map(Elem::Param).unwrap_or_else(|| {
            *problem = Some(format!("the dtype of `{name}` is no generic parameter's and differs between instances"));
            Elem::Dtype(dtypes[0].0)
        }),
    };
    let same_kind = read.iter().all(|(ty, _)| std::mem::discriminant(*ty) == std::mem::discriminant(*first));
    if !same_kind {
        *problem = Some(format!("the parameter `{name}` is a tensor in some instances and a scalar in others"));
    }
    Some(match first {
        ParamTy::Gmem { mutable, span, .. } => {
            HostKind::Tensor { elem, mutable: *mutable, peers: peers_in(name, models), span: *span }
        }
        ParamTy::Scalar(dtype) => HostKind::Scalar { elem, span: dtype.span },
    })
}

/// Whether the parameter `name` is `#[peers]` (in every instance that reads it, as the attribute
/// is written once).
fn peers_in(name: &Ident, models: &[Model]) -> bool {
    models.iter().flat_map(|(k, _, _)| k.params.iter().find(|p| p.name == *name)).any(|p| p.peers.is_some())
}

/// The type parameter a parameter's type names as its dtype, as written: `T` in `Gmem<T, M, K>`,
/// `GmemMut<T, ..>` or a scalar `x: T`. (The instances confirm it; a spelling this does not see
/// is found from them.)
fn named_param(ty: &syn::Type, generics: &[Param]) -> Option<usize> {
    let syn::Type::Path(p) = peel(ty) else { return None };
    let segment = p.path.segments.last()?;
    let named = match &segment.arguments {
        syn::PathArguments::None if p.path.segments.len() == 1 => &segment.ident,
        syn::PathArguments::AngleBracketed(args) if segment.ident == "Gmem" || segment.ident == "GmemMut" => {
            let Some(syn::GenericArgument::Type(elem)) = args.args.first() else { return None };
            let syn::Type::Path(elem) = peel(elem) else { return None };
            elem.path.get_ident()?
        }
        _ => return None,
    };
    generics.iter().position(|g| g.name == *named && matches!(g.kind, Kind::Dtype))
}

fn peel(ty: &syn::Type) -> &syn::Type {
    match ty {
        syn::Type::Group(g) => peel(&g.elem),
        syn::Type::Paren(p) => peel(&p.elem),
        ty => ty,
    }
}

/// Whose types the generated signatures are written in: the generic parameters', or an instance's
/// values.
#[derive(Clone, Copy)]
pub(super) enum Bind<'a> {
    Generic(&'a [Param]),
    Instance(&'a Instance),
}

/// The views of a parameter (`check_args`, `launch`, `interpret`, and the last two of a kernel of
/// several devices), as in `host::params`.
#[derive(Clone, Copy)]
pub(super) enum View {
    Shape,
    Device,
    Host,
    GroupDevice,
    GroupHost,
}

impl HostParam {
    /// `name: Type` in `view`; anything (`impl Sized`) where the type was not read.
    pub(super) fn declare(&self, view: View, bind: Bind) -> TokenStream {
        let name = &self.name;
        let ty = self.kind.and_then(|k| ty(k, view, bind)).unwrap_or_else(|| quote!(impl ::core::marker::Sized));
        quote!(#name: #ty)
    }
}

fn ty(kind: HostKind, view: View, bind: Bind) -> Option<TokenStream> {
    Some(match (kind, view) {
        (HostKind::Tensor { span, .. }, View::Shape) => quote_spanned!(span=> &[::core::primitive::usize]),
        (HostKind::Tensor { elem, mutable, span, .. }, View::Device) => {
            let elem = elem_type(elem, bind, span, true)?;
            match mutable {
                false => quote_spanned!(span=> &impl ::tessel::__private::AsDeviceView<#elem>),
                true => quote_spanned!(span=> &mut impl ::tessel::__private::AsDeviceViewMut<#elem>),
            }
        }
        (HostKind::Tensor { elem, mutable, span, .. }, View::Host) => {
            let elem = elem_type(elem, bind, span, true)?;
            let mutable = mutable.then(|| quote_spanned!(span=> mut));
            quote_spanned!(span=> & #mutable ::tessel::__private::HostTensor<#elem>)
        }
        (HostKind::Tensor { elem, mutable, peers, span }, View::GroupDevice) => {
            let elem = elem_type(elem, bind, span, true)?;
            match (peers, mutable) {
                (false, false) => quote_spanned!(span=> &[impl ::tessel::__private::AsDeviceView<#elem>]),
                (false, true) => quote_spanned!(span=> &mut [impl ::tessel::__private::AsDeviceViewMut<#elem>]),
                (true, false) => quote_spanned!(span=> &::tessel::__private::SymmetricTensor<#elem>),
                (true, true) => quote_spanned!(span=> &mut ::tessel::__private::SymmetricTensor<#elem>),
            }
        }
        (HostKind::Tensor { elem, mutable, span, .. }, View::GroupHost) => {
            let elem = elem_type(elem, bind, span, true)?;
            let mutable = mutable.then(|| quote_spanned!(span=> mut));
            quote_spanned!(span=> & #mutable [::tessel::__private::HostTensor<#elem>])
        }
        (HostKind::Scalar { elem, span }, _) => elem_type(elem, bind, span, false)?,
    })
}

/// The Rust type of an element: the type parameter, or the host type of a dtype (a tensor's
/// element type, or a scalar's ABI type), as `host::params` writes it for a plain kernel.
fn elem_type(elem: Elem, bind: Bind, span: Span, tensor: bool) -> Option<TokenStream> {
    let dtype = match (elem, bind) {
        (Elem::Param(k), Bind::Generic(generics)) => return generics.get(k).map(|g| g.name.to_token_stream()),
        (Elem::Param(k), Bind::Instance(instance)) => match instance.values.get(k)? {
            Value::Dtype(d) => *d,
            Value::Int(_) => return None,
        },
        (Elem::Dtype(d), _) => d,
    };
    if tensor {
        element_type(dtype, span)
    } else {
        Scalar::of(dtype).map(|s| s.rust_type(span))
    }
}

/// `T: Element, const BN: usize`: the generic parameters as the struct, trait and impls declare
/// them.
pub(super) fn declarations(generics: &[Param]) -> Vec<TokenStream> {
    generics
        .iter()
        .map(|g| {
            let name = &g.name;
            match &g.kind {
                Kind::Dtype => quote!(#name: ::tessel::__private::Element),
                Kind::Int { ty, .. } => quote!(const #name: #ty),
            }
        })
        .collect()
}

/// The generic arguments for `bind`: `T, BN`, or an instance's `::tessel::__private::bf16, 256`.
pub(super) fn arguments(generics: &[Param], bind: Bind) -> Vec<TokenStream> {
    match bind {
        Bind::Generic(_) => generics.iter().map(|g| g.name.to_token_stream()).collect(),
        Bind::Instance(instance) => instance
            .values
            .iter()
            .map(|v| match *v {
                Value::Dtype(d) => element_type(d, instance.loc.start).unwrap_or_else(|| quote!(())),
                Value::Int(n) => {
                    let mut lit = Literal::u64_unsuffixed(n);
                    lit.set_span(instance.loc.start);
                    lit.into_token_stream()
                }
            })
            .collect(),
    }
}

/// The items of a generic kernel that passed checking: `instances` pairs each instance with the
/// items of its plain module (`host::items`).
pub(crate) fn expand(
    func: &syn::ItemFn,
    generics: &[Param],
    shape: &Shape,
    instances: &[(&Instance, TokenStream)],
) -> TokenStream {
    let names: Vec<&str> = instances.iter().map(|(i, _)| i.name.as_str()).collect();
    let the_struct = structure(func, generics, Some(&names));
    let shared = match shape {
        Shape::Shared(sig) => Some(sig),
        Shape::PerInstance(_) => None,
    };
    let trait_ = instance_trait(func, generics, shared, &names);
    let modules = instances.iter().enumerate().map(|(n, (_, items))| {
        let module = instance_module(n);
        quote!(mod #module { #items })
    });
    let impls =
        instances.iter().enumerate().map(|(n, (instance, _))| instance_impl(func, generics, shared, instance, n));
    let inherent = inherent(func, generics, shared);
    let own = instances.iter().enumerate().filter_map(|(n, (instance, _))| {
        let sig = per_instance::sig(shape, instance)?;
        Some(per_instance::methods(func, generics, sig, instance, per_instance::Body::Forward(instance_module(n))))
    });
    wrap(
        func,
        quote! {
            #the_struct
            #trait_
            #(#modules)*
            #(#impls)*
            #inherent
            #(#own)*
        },
    )
}

/// The hidden module holding `items`, and the struct brought out of it with the function's
/// visibility (and `cfg`s).
pub(super) fn wrap(func: &syn::ItemFn, items: TokenStream) -> TokenStream {
    let (name, hidden, vis) = (&func.sig.ident, hidden_module(func), &func.vis);
    let cfgs = cfgs(func);
    quote! {
        #(#cfgs)*
        #[doc(hidden)]
        #[allow(non_snake_case, non_camel_case_types, dead_code)]
        #vis mod #hidden {
            #items
        }
        #(#cfgs)*
        #[allow(unused_imports)]
        #vis use #hidden::#name;
    }
}

/// The module of the `n`-th instance's items.
pub(super) fn instance_module(n: usize) -> Ident {
    format_ident!("__instance_{}", n)
}

/// `__tessel_matmul`: the module holding the struct and everything about it.
fn hidden_module(func: &syn::ItemFn) -> Ident {
    format_ident!("__tessel_{}", func.sig.ident)
}

/// The trait each instance implements: `Instance`, which rustc's notes name, unless the kernel is
/// itself called so.
fn trait_name(func: &syn::ItemFn) -> Ident {
    let name = if func.sig.ident == "Instance" { "InstanceOfKernel" } else { "Instance" };
    Ident::new(name, Span::call_site())
}

fn cfgs(func: &syn::ItemFn) -> Vec<&syn::Attribute> {
    func.attrs.iter().filter(|a| a.path().is_ident("cfg")).collect()
}

/// The struct, with the function's documentation (and `pub`: `wrap` brings it out with the
/// function's visibility); `instances` names them in the documentation (`None` in the fallback).
pub(super) fn structure(func: &syn::ItemFn, generics: &[Param], instances: Option<&[&str]>) -> TokenStream {
    let attrs = forwarded_attrs(func);
    let name = &func.sig.ident;
    let decls = declarations(generics);
    let types = generics.iter().filter(|g| matches!(g.kind, Kind::Dtype)).map(|g| &g.name);
    let gap = attrs.iter().any(|a| a.path().is_ident("doc")).then(|| quote!(#[doc = ""]));
    let listed = instances.map_or_else(String::new, |names| {
        let names: Vec<String> = names.iter().map(|n| format!("`{n}`")).collect();
        format!(" Its instances: {}.", names.join(", "))
    });
    let doc = format!(
        "The generic `{name}` kernel (`#[kernel]`), compiled for each instance its attribute lists.{listed} \
         `{name}::<..>::launch` runs an instance on a Hopper GPU, `interpret` on the CPU, `check_args` \
         checks arguments without either; `PTX`, `ENTRY` and `SIGNATURE` are the instance's."
    );
    // At the kernel's name, where rustc's notes about the struct point.
    let item = quote_spanned! {name.span()=>
        pub struct #name<#(#decls),*> {
            __instance: ::core::marker::PhantomData<fn() -> (#(#types,)*)>,
        }
    };
    quote! {
        #(#attrs)*
        #gap
        #[doc = #doc]
        #[allow(non_camel_case_types, dead_code)]
        #item
    }
}

/// The hidden trait each declared instance implements, whose `on_unimplemented` message is what
/// rustc says at a call of an instance that is not declared.
fn instance_trait(func: &syn::ItemFn, generics: &[Param], shared: Option<&HostSig>, names: &[&str]) -> TokenStream {
    let name = &func.sig.ident;
    let decls = declarations(generics);
    // `{T}` and `{BN}` are rustc's: the trait's arguments at the failing call.
    let placeholders: Vec<String> = generics.iter().map(|g| format!("{{{}}}", g.name)).collect();
    let message = format!("`{name}::<{}>` is not an instance of the generic kernel `{name}`", placeholders.join(", "));
    let message = Code::UndeclaredInstance.label(message);
    let label = format!("`{name}` is not compiled for these generic arguments");
    let declared: Vec<String> = names.iter().map(|n| format!("`{n}`")).collect();
    let note = format!(
        "`#[kernel(..)]` compiles `{name}` for the instances it lists: {}. To call this one, add \
         `({})` to its `instances(..)`, a dtype written by its name (`bf16`, `f8e4m3`)",
        declared.join(", "),
        placeholders.join(", ")
    );
    let signatures = shared.map(|sig| signatures(sig, Bind::Generic(generics))).into_iter().flatten();
    let trait_name = trait_name(func);
    quote! {
        #[diagnostic::on_unimplemented(message = #message, label = #label, note = #note)]
        pub trait #trait_name<#(#decls),*> {
            const SIGNATURE: ::tessel::__private::Signature;
            const PTX: ::tessel::__private::Ptx;
            const ENTRY: &'static str;
            #(#[allow(clippy::too_many_arguments)] #signatures;)*
        }
    }
}

/// The signatures of `check_args`, `launch` and `interpret` with the types of `bind`.
pub(super) fn signatures(shape: &HostSig, bind: Bind) -> [TokenStream; 3] {
    let shapes = shape.params.iter().map(|p| p.declare(View::Shape, bind));
    let (device, host) = if shape.group { (View::GroupDevice, View::GroupHost) } else { (View::Device, View::Host) };
    let devices = shape.params.iter().map(|p| p.declare(device, bind));
    let hosts = shape.params.iter().map(|p| p.declare(host, bind));
    let (n_dims, target) = (shape.n_dims, shape.target());
    let target_ty = match shape.group {
        true => quote!(&::tessel::__private::DeviceGroup),
        false => quote!(&impl ::tessel::__private::AsStream),
    };
    [
        quote!(fn check_args(#(#shapes),*) -> ::tessel::Result<::tessel::__private::LaunchPlan<#n_dims>>),
        quote!(fn launch(#target: #target_ty, #(#devices),*) -> ::tessel::Result<()>),
        quote!(fn interpret(#(#hosts),*) -> ::tessel::Result<()>),
    ]
}

/// `impl Instance<bf16, 256> for matmul<bf16, 256>`: forwards to the instance's module
/// `__instance_{n}`. The impl carries the span of the instance in the attribute, where rustc's list of the
/// implemented instances points.
fn instance_impl(
    func: &syn::ItemFn,
    generics: &[Param],
    shared: Option<&HostSig>,
    instance: &Instance,
    n: usize,
) -> TokenStream {
    let name = &func.sig.ident;
    let module = instance_module(n);
    let trait_name = trait_name(func);
    let args = arguments(generics, Bind::Instance(instance));
    let functions = shared.map(|sig| {
        let [check_args, launch, interpret] = signatures(sig, Bind::Instance(instance));
        let names: Vec<&Ident> = sig.params.iter().map(|p| &p.name).collect();
        let stream = sig.target();
        quote! {
            #[allow(clippy::too_many_arguments)]
            #check_args { self::#module::check_args(#(#names),*) }
            #[allow(clippy::too_many_arguments)]
            #launch { self::#module::launch(#stream, #(#names),*) }
            #[allow(clippy::too_many_arguments)]
            #interpret { self::#module::interpret(#(#names),*) }
        }
    });
    quote_spanned! {instance.loc.start=>
        impl self::#trait_name<#(#args),*> for self::#name<#(#args),*> {
            const SIGNATURE: ::tessel::__private::Signature = self::#module::SIGNATURE;
            const PTX: ::tessel::__private::Ptx = self::#module::PTX;
            const ENTRY: &'static str = self::#module::ENTRY;
            #functions
        }
    }
}

/// The struct's associated items, for every declared instance.
fn inherent(func: &syn::ItemFn, generics: &[Param], shared: Option<&HostSig>) -> TokenStream {
    let name = &func.sig.ident;
    let (decls, args) = (declarations(generics), arguments(generics, Bind::Generic(generics)));
    // At the kernel's name: rustc's "required by this bound" note points there.
    let trait_name = trait_name(func);
    let instance = quote_spanned!(name.span()=> self::#trait_name<#(#args),*>);
    let functions = shared.map(|sig| {
        let [check_args, launch, interpret] = signatures(sig, Bind::Generic(generics));
        let names: Vec<&Ident> = sig.params.iter().map(|p| &p.name).collect();
        let stream = sig.target();
        let (doc_check, doc_launch, doc_interpret) = (DOC_CHECK_ARGS, DOC_LAUNCH, DOC_INTERPRET);
        quote! {
            impl<#(#decls),*> self::#name<#(#args),*> {
                #[doc = #doc_check]
                #[allow(clippy::too_many_arguments)]
                pub #check_args where Self: #instance {
                    <Self as #instance>::check_args(#(#names),*)
                }

                #[doc = #doc_launch]
                #[allow(clippy::too_many_arguments)]
                pub #launch where Self: #instance {
                    <Self as #instance>::launch(#stream, #(#names),*)
                }

                #[doc = #doc_interpret]
                #[allow(clippy::too_many_arguments)]
                pub #interpret where Self: #instance {
                    <Self as #instance>::interpret(#(#names),*)
                }
            }
        }
    });
    quote! {
        #functions

        impl<#(#decls),*> self::#name<#(#args),*> where Self: #instance {
            /// The instance's checked signature: parameters, runtime dimensions and resources.
            pub const SIGNATURE: ::tessel::__private::Signature = <Self as #instance>::SIGNATURE;
            /// The instance's PTX module, for `sm_90a`.
            pub const PTX: ::tessel::__private::Ptx = <Self as #instance>::PTX;
            /// The name of the kernel's entry point in `PTX`.
            pub const ENTRY: &'static str = <Self as #instance>::ENTRY;
        }
    }
}

/// The documentation of the generated `check_args`.
pub(super) const DOC_CHECK_ARGS: &str = "Checks a launch's arguments against the instance's signature before \
    anything reaches the GPU (ranks, static and runtime dimensions, divisibility, the grid), from each tensor's \
    shape, so it runs without a GPU; `launch` and `interpret` call it first. Returns the launch configuration \
    and the runtime dimensions in `SIGNATURE` order.";
/// The documentation of the generated `launch`.
pub(super) const DOC_LAUNCH: &str = "Launches the instance on `stream` (a `Device` or a cudarc stream). Checks \
    the arguments first (`check_args`); every failure is an `Err`, and nothing is launched then. The launch \
    is asynchronous.";
/// The documentation of the generated `interpret`.
pub(super) const DOC_INTERPRET: &str = "Runs the instance on the CPU, through tessel's interpreter: the same \
    program as its PTX, on host tensors. Checks the arguments first, as `launch` does.";
