//! `interpret`: the kernel on the CPU, through tessel's interpreter.
//!
//! The interpreter reads the kernel from its source text (`SOURCE`, the attribute and the function
//! as the macro received them) and runs the same checked program the PTX came from, on host tensors.

use super::params::{HostKind, HostParam};
use super::Input;
use proc_macro2::{Delimiter, Group, TokenStream, TokenTree};
use quote::quote;

/// `static SOURCE` and `pub fn interpret(<host tensors and scalars>) -> Result<()>`.
pub(crate) fn interpret(params: &[HostParam], input: &Input) -> TokenStream {
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
    let (attr, item) = (source_text(&input.attr), source_text(&input.item));
    quote! {
        /// The kernel's source, read by the interpreter.
        static SOURCE: ::tessel::__private::interp::KernelSource =
            ::tessel::__private::interp::KernelSource { attr: #attr, item: #item };

        /// Runs the kernel on the CPU: the same program as the PTX, on host tensors, one host
        /// thread per warpgroup (so barriers and producer/consumer code behave), with TMA copies
        /// synchronous. Checks the arguments first, exactly as `launch` does (`check_args`).
        #[allow(clippy::too_many_arguments)]
        pub fn interpret(#(#decls),*) -> ::tessel::Result<()> {
            self::check_args(#(#shapes),*)?;
            ::tessel::__private::interp::interpret(&self::SOURCE, &mut [#(#args),*])
        }
    }
}

/// `tokens` as text the interpreter parses into the program the macro parsed. A fragment that a
/// `macro_rules!` substituted (`$act:expr`) arrives as a group without delimiters, which keeps
/// its precedence (`$act.cast::<f32>()` casts all of `z * recip(..)`) but prints without them;
/// such a group of more than one token is printed in parentheses.
fn source_text(tokens: &TokenStream) -> String {
    fn regroup(tokens: &TokenStream) -> TokenStream {
        tokens
            .clone()
            .into_iter()
            .map(|tree| match tree {
                TokenTree::Group(g) => {
                    let inner = regroup(&g.stream());
                    let delimiter = match g.delimiter() {
                        Delimiter::None if inner.clone().into_iter().nth(1).is_some() => Delimiter::Parenthesis,
                        other => other,
                    };
                    let mut out = Group::new(delimiter, inner);
                    out.set_span(g.span());
                    TokenTree::Group(out)
                }
                other => other,
            })
            .collect()
    }
    regroup(tokens).to_string()
}
