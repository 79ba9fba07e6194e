//! `#[when(condition)]` on a kernel parameter or a dimension of `ragged(..)`: the parameter or
//! the raggedness exists only where the condition, known when the kernel is read, holds. In a
//! generic kernel the condition names the generic parameters, so instances differ in them:
//! `#[when(TRAIN == 1)] lse: GmemMut<f32, H, S>` is a parameter of the training instances only,
//! `ragged(S, #[when(MASK_T == 1)] T)` lets T overhang in the instances that mask it.

use super::function::tokens_loc;
use super::known;
use crate::codes::Code;
use crate::diag::{Ctxt, Loc};
use syn::spanned::Spanned as _;

/// What the attributes are on, for the messages.
#[derive(Clone, Copy)]
pub(crate) enum On {
    Param,
    Ragged,
}

impl On {
    fn what(self) -> &'static str {
        match self {
            On::Param => "a kernel parameter",
            On::Ragged => "a dimension of `ragged(..)`",
        }
    }

    fn example(self) -> &'static str {
        match self {
            On::Param => "`#[when(TRAIN == 1)] lse: GmemMut<f32, H, S>`",
            On::Ragged => "`ragged(S, #[when(MASK_T == 1)] T)`",
        }
    }
}

/// Whether the item with `attrs` is kept: every `#[when(..)]` among them holds. Any other
/// attribute, a malformed `#[when]` and a condition not known when the kernel is read are
/// reported, and keep the item (so that its uses report nothing more).
pub(crate) fn kept(ctx: &Ctxt, attrs: &[syn::Attribute], on: On) -> bool {
    let mut keep = true;
    for attr in attrs {
        keep &= condition(ctx, attr, on).unwrap_or(true);
    }
    keep
}

fn condition(ctx: &Ctxt, attr: &syn::Attribute, on: On) -> Option<bool> {
    let at = tokens_loc(attr).unwrap_or_else(|| Loc::from(attr.span()));
    let also = match on {
        On::Param => " (and `#[peers]`, on a global array of a kernel with `devices = W`)",
        On::Ragged => "",
    };
    let help = format!(
        "{} takes one attribute, `#[when(condition)]`, which leaves it out where the condition is \
         false: {}{also}",
        on.what(),
        on.example()
    );
    if !attr.path().is_ident("when") {
        ctx.type_error(at, Code::WhenAttr, format!("this attribute on {}", on.what()), help);
        return None;
    }
    match attr.parse_args::<syn::Expr>() {
        Ok(cond) => known::when(ctx, &cond),
        Err(_) => {
            ctx.type_error(at, Code::WhenAttr, "expected `#[when(condition)]`", help);
            None
        }
    }
}
