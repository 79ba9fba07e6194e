//! How each kernel parameter crosses from the host: its Rust type in `launch` (a device tensor or a
//! scalar), in `interpret` (a host tensor or a scalar) and in `check_args` (a shape), and the
//! `KernelArg` the kernel ABI (`crate::ptx`) expects for it.

use crate::codes::Code;
use crate::diag::Ctxt;
use crate::syntax::ast::{Kernel, Param, ParamTy};
use crate::types::DType;
use proc_macro2::{Span, TokenStream};
use quote::{quote, quote_spanned};
use syn::Ident;

/// A kernel parameter as the host sees it.
pub(crate) struct HostParam<'k> {
    pub name: &'k Ident,
    pub kind: HostKind,
}

pub(crate) enum HostKind {
    /// `Gmem<T, ..>` / `GmemMut<T, ..>`: a tensor of the element type `elem`; `peers` for a
    /// `#[peers]` one (a `SymmetricTensor` in a group launch).
    Tensor { elem: TokenStream, mutable: bool, peers: bool, span: Span },
    /// A scalar passed by value.
    Scalar { scalar: Scalar, span: Span },
}

/// The scalar types a kernel parameter may have: those with a `.param` type in the kernel ABI
/// (`legality::SCALAR_PARAMS`, which typeck enforces).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Scalar {
    F32,
    I32,
    U32,
    I64,
    U64,
}

impl Scalar {
    /// The ABI's scalar for a dtype, or `None` for dtypes a kernel cannot take by value.
    pub fn of(dtype: DType) -> Option<Scalar> {
        match dtype {
            DType::F32 => Some(Scalar::F32),
            DType::I32 => Some(Scalar::I32),
            DType::U32 => Some(Scalar::U32),
            DType::I64 => Some(Scalar::I64),
            DType::U64 => Some(Scalar::U64),
            DType::Bf16
            | DType::F16
            | DType::Tf32
            | DType::F8E4M3
            | DType::F8E5M2
            | DType::I4
            | DType::I8
            | DType::U8
            | DType::I16
            | DType::U16
            | DType::Bool => None,
        }
    }

    /// The Rust type.
    pub fn rust_type(self, span: Span) -> TokenStream {
        match self {
            Scalar::F32 => quote_spanned!(span=> ::core::primitive::f32),
            Scalar::I32 => quote_spanned!(span=> ::core::primitive::i32),
            Scalar::U32 => quote_spanned!(span=> ::core::primitive::u32),
            Scalar::I64 => quote_spanned!(span=> ::core::primitive::i64),
            Scalar::U64 => quote_spanned!(span=> ::core::primitive::u64),
        }
    }

    /// The `KernelArg` passing `value` as the ABI's `.param` type.
    pub fn kernel_arg(self, value: &Ident) -> TokenStream {
        let arg = quote!(::tessel::__private::KernelArg);
        match self {
            Scalar::F32 => quote!(#arg::F32(#value)),
            Scalar::I32 => quote!(#arg::I32(#value)),
            Scalar::U32 => quote!(#arg::U32(#value)),
            // `.param .s64` and `.u64` are the same 8 bytes; `as` reinterprets the bits.
            Scalar::I64 => quote!(#arg::U64(#value as ::core::primitive::u64)),
            Scalar::U64 => quote!(#arg::U64(#value)),
        }
    }

    /// The interpreter's `Arg` for `value`.
    pub fn interp_arg(self, value: &Ident) -> TokenStream {
        let arg = quote!(::tessel::__private::interp::Arg);
        match self {
            Scalar::F32 => quote!(#arg::F32(#value)),
            Scalar::I32 => quote!(#arg::I32(#value)),
            Scalar::U32 => quote!(#arg::U32(#value)),
            Scalar::I64 => quote!(#arg::I64(#value)),
            Scalar::U64 => quote!(#arg::U64(#value)),
        }
    }
}

/// The host type of a global array's elements, or `None` for dtypes no host tensor holds.
/// tf32 is stored as f32 (its low 13 mantissa bits are ignored by the tensor cores).
pub(crate) fn element_type(dtype: DType, span: Span) -> Option<TokenStream> {
    Some(match dtype {
        DType::Bf16 => quote_spanned!(span=> ::tessel::__private::bf16),
        DType::F16 => quote_spanned!(span=> ::tessel::__private::f16),
        DType::F32 | DType::Tf32 => quote_spanned!(span=> ::core::primitive::f32),
        DType::F8E4M3 => quote_spanned!(span=> ::tessel::__private::F8E4M3),
        DType::F8E5M2 => quote_spanned!(span=> ::tessel::__private::F8E5M2),
        DType::I8 => quote_spanned!(span=> ::core::primitive::i8),
        DType::U8 => quote_spanned!(span=> ::core::primitive::u8),
        DType::I16 => quote_spanned!(span=> ::core::primitive::i16),
        DType::U16 => quote_spanned!(span=> ::core::primitive::u16),
        DType::I32 => quote_spanned!(span=> ::core::primitive::i32),
        DType::U32 => quote_spanned!(span=> ::core::primitive::u32),
        DType::I64 => quote_spanned!(span=> ::core::primitive::i64),
        DType::U64 => quote_spanned!(span=> ::core::primitive::u64),
        // i4 packs two elements to a byte and bool has no defined memory format in PTX: neither has
        // a host tensor type yet.
        DType::I4 | DType::Bool => return None,
    })
}

/// The host view of every parameter; a parameter whose type the host cannot represent is
/// reported to `ctx` and left out.
pub(crate) fn host_params<'k>(ctx: &Ctxt, kernel: &'k Kernel) -> Vec<HostParam<'k>> {
    kernel.params.iter().filter_map(|p| host_param(Some(ctx), p)).collect()
}

/// One parameter's host view; reports to `ctx` (if given) when there is none.
pub(crate) fn host_param<'k>(ctx: Option<&Ctxt>, p: &'k Param) -> Option<HostParam<'k>> {
    let report = |span, what: String| {
        if let Some(ctx) = ctx {
            ctx.unsupported(span, Code::ParamType, what);
        }
    };
    let kind = match &p.ty {
        ParamTy::Gmem { dtype, mutable, span, .. } => match element_type(dtype.value, dtype.span) {
            Some(elem) => HostKind::Tensor { elem, mutable: *mutable, peers: p.peers.is_some(), span: *span },
            None => {
                report(dtype.span, format!("global arrays of {} (no host tensor holds them yet)", dtype.value));
                return None;
            }
        },
        ParamTy::Scalar(dtype) => match Scalar::of(dtype.value) {
            Some(scalar) => HostKind::Scalar { scalar, span: dtype.span },
            // typeck rejects these first (`legality::SCALAR_PARAMS`): only the fallback of a
            // rejected kernel, which reports nothing, meets one.
            None => {
                report(
                    dtype.span,
                    format!("scalar parameters of type {} (pass f32, i32, u32, i64 or u64)", dtype.value),
                );
                return None;
            }
        },
    };
    Some(HostParam { name: &p.name, kind })
}

impl HostParam<'_> {
    /// The parameter's type in `launch`: `&impl AsDeviceView<T>` (a `DeviceTensor<T>` or a view of
    /// one), `&mut impl AsDeviceViewMut<T>` or the scalar.
    pub fn device_type(&self) -> TokenStream {
        match &self.kind {
            HostKind::Tensor { elem, mutable: false, span, .. } => {
                quote_spanned!(*span=> &impl ::tessel::__private::AsDeviceView<#elem>)
            }
            HostKind::Tensor { elem, mutable: true, span, .. } => {
                quote_spanned!(*span=> &mut impl ::tessel::__private::AsDeviceViewMut<#elem>)
            }
            HostKind::Scalar { scalar, span } => scalar.rust_type(*span),
        }
    }

    /// The parameter's type in `interpret`: `&HostTensor<T>`, `&mut HostTensor<T>` or the scalar.
    pub fn host_type(&self) -> TokenStream {
        match &self.kind {
            HostKind::Tensor { elem, mutable: false, span, .. } => {
                quote_spanned!(*span=> &::tessel::__private::HostTensor<#elem>)
            }
            HostKind::Tensor { elem, mutable: true, span, .. } => {
                quote_spanned!(*span=> &mut ::tessel::__private::HostTensor<#elem>)
            }
            HostKind::Scalar { scalar, span } => scalar.rust_type(*span),
        }
    }

    /// The parameter's type in a group `launch` (a kernel of several devices): a tensor per rank
    /// (`&[impl AsDeviceView<T>]`, `&mut [impl AsDeviceViewMut<T>]`), a `#[peers]` array's
    /// `&SymmetricTensor<T>` (`&mut` where written), or the scalar, the same for every rank.
    pub fn group_type(&self) -> TokenStream {
        match &self.kind {
            HostKind::Tensor { elem, mutable: false, peers: false, span } => {
                quote_spanned!(*span=> &[impl ::tessel::__private::AsDeviceView<#elem>])
            }
            HostKind::Tensor { elem, mutable: true, peers: false, span } => {
                quote_spanned!(*span=> &mut [impl ::tessel::__private::AsDeviceViewMut<#elem>])
            }
            HostKind::Tensor { elem, mutable: false, peers: true, span } => {
                quote_spanned!(*span=> &::tessel::__private::SymmetricTensor<#elem>)
            }
            HostKind::Tensor { elem, mutable: true, peers: true, span } => {
                quote_spanned!(*span=> &mut ::tessel::__private::SymmetricTensor<#elem>)
            }
            HostKind::Scalar { scalar, span } => scalar.rust_type(*span),
        }
    }

    /// The parameter's type in a group `interpret`: a host tensor per rank (`&[HostTensor<T>]`,
    /// `&mut [HostTensor<T>]` where written, `#[peers]` or not), or the scalar.
    pub fn group_host_type(&self) -> TokenStream {
        match &self.kind {
            HostKind::Tensor { elem, mutable: false, span, .. } => {
                quote_spanned!(*span=> &[::tessel::__private::HostTensor<#elem>])
            }
            HostKind::Tensor { elem, mutable: true, span, .. } => {
                quote_spanned!(*span=> &mut [::tessel::__private::HostTensor<#elem>])
            }
            HostKind::Scalar { scalar, span } => scalar.rust_type(*span),
        }
    }

    /// The parameter's type in `check_args`: a tensor's shape, or the scalar.
    pub fn shape_type(&self) -> TokenStream {
        match &self.kind {
            HostKind::Tensor { span, .. } => quote_spanned!(*span=> &[::core::primitive::usize]),
            HostKind::Scalar { scalar, span } => scalar.rust_type(*span),
        }
    }

    /// `name: Type` for a parameter list.
    pub fn declare(&self, ty: TokenStream) -> TokenStream {
        let name = self.name;
        quote!(#name: #ty)
    }
}
