//! The kernel's PTX as the binary holds it: deflated (`tessel_ir::compress`) into a `static`.
//!
//! A `const` whose value is a string literal is copied into every codegen unit that uses it (the
//! module's launch, a generic kernel's trait impl, a family's `ALL_PTX` and dispatchers), so a
//! binary held two copies of most kernels' PTX. The bytes are now a `static`, which every use
//! refers to, and compressed: the PTX is most of a binary that links many kernels.

use crate::codes::internal_error;
use proc_macro2::{Literal, Span, TokenStream};
use quote::quote;
use tessel_ir::compress;

/// `pub const PTX: Ptx`, holding `ptx` deflated; an internal error if the bytes would not
/// inflate to `ptx` (checked here, so that the runtime's inflation cannot fail).
pub(super) fn ptx_const(ptx: &str, at: Span) -> Result<TokenStream, syn::Error> {
    let deflated = compress::deflate(ptx.as_bytes());
    if compress::inflate(&deflated, ptx.len()).as_deref() != Ok(ptx.as_bytes()) {
        return Err(internal_error(at, "the compressed PTX does not inflate to the PTX"));
    }
    let (n, len, bytes) = (deflated.len(), ptx.len(), Literal::byte_string(&deflated));
    Ok(quote! {
        /// The kernel's PTX module, for `sm_90a`: a `&'static str` once read (`Ptx`), held
        /// compressed in the binary.
        pub const PTX: ::tessel::__private::Ptx = {
            static DEFLATED: [u8; #n] = *#bytes;
            ::tessel::__private::Ptx::deflated(&DEFLATED, #len)
        };
    })
}
