//! `interpret`: the kernel on the CPU, through tessel's interpreter.
//!
//! The macro embeds the kernel's program (`crate::lower`, encoded by `tessel_ir::codec`, then
//! deflated by `tessel_ir::compress`: about 3 times smaller) in a `static`; the interpreter
//! inflates and decodes it once per process and runs it on host tensors. It is the
//! program the PTX came from: nothing is parsed at run time.

use super::params::{HostKind, HostParam};
use proc_macro2::{Literal, TokenStream};
use quote::quote;

/// `static PROGRAM` and `pub fn interpret(<host tensors and scalars>) -> Result<()>`.
pub(crate) fn interpret(params: &[HostParam], program: &[u8]) -> TokenStream {
    let decls = params.iter().map(|p| p.declare(p.host_type()));
    let shapes = params.iter().map(|p| {
        let name = p.name;
        match p.kind {
            HostKind::Tensor { .. } => quote!(#name.shape()),
            HostKind::Scalar { .. } => quote!(#name),
        }
    });
    let args = params.iter().map(|p| {
        let name = p.name;
        match &p.kind {
            HostKind::Tensor { mutable: false, .. } => quote!(::tessel::__private::interp::Arg::Tensor(#name)),
            HostKind::Tensor { mutable: true, .. } => quote!(::tessel::__private::interp::Arg::TensorMut(#name)),
            HostKind::Scalar { scalar, .. } => scalar.interp_arg(name),
        }
    });
    let program = program_static(program);
    quote! {
        #program

        /// Runs the kernel on the CPU: the same program as the PTX, on host tensors, one host
        /// thread per warpgroup (so barriers and producer/consumer code behave), TMA copies
        /// landing and wgmmas completing at the waits that cover them. Checks the arguments first,
        /// exactly as `launch` does (`check_args`). A data race (two accesses to shared or global
        /// memory that nothing orders, an accumulator read before its `wgmma_wait`) is an
        /// `Error::Interpreter` naming both accesses; `TESSEL_RACE_CHECK=0` or
        /// `tessel::with_race_check(false, || ..)` turns the detector off.
        #[allow(clippy::too_many_arguments)]
        pub fn interpret(#(#decls),*) -> ::tessel::Result<()> {
            self::check_args(#(#shapes),*)?;
            ::tessel::__private::interp::interpret(&self::PROGRAM, &mut [#(#args),*])
        }
    }
}

/// `static PROGRAM`: the kernel's program, encoded.
pub(super) fn program_static(program: &[u8]) -> TokenStream {
    let (len, bytes) = (program.len(), Literal::byte_string(&tessel_ir::compress::deflate(program)));
    quote! {
        /// The kernel's program, encoded and compressed: what the interpreter runs.
        static PROGRAM: ::tessel::__private::interp::Embedded =
            ::tessel::__private::interp::Embedded::deflated(#bytes, #len);
    }
}
