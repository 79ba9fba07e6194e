//! `#[peers]` on a kernel parameter: a symmetric array, one copy per device of the group of
//! `devices = W`, every copy reachable from every device (`remote(buf, rank)`). `typeck` checks
//! what the attribute is on; here it is read, and told apart from the parameter's other
//! attributes (`#[when(..)]`).

use super::function::tokens_loc;
use crate::codes::Code;
use crate::diag::{Ctxt, Loc};
use syn::spanned::Spanned as _;

/// The `#[peers]` attribute among `attrs` (where written), and the others. A `#[peers(..)]` with
/// arguments, or a second `#[peers]`, is reported.
pub(crate) fn split(ctx: &Ctxt, attrs: &[syn::Attribute]) -> (Option<Loc>, Vec<syn::Attribute>) {
    let mut peers = None;
    let mut others = Vec::new();
    for attr in attrs {
        if !attr.path().is_ident("peers") {
            others.push(attr.clone());
            continue;
        }
        let at = tokens_loc(attr).unwrap_or_else(|| Loc::from(attr.span()));
        if !matches!(attr.meta, syn::Meta::Path(_)) {
            ctx.type_error(
                at,
                Code::PeersParam,
                "`#[peers]` takes no arguments",
                "write `#[peers] buf: GmemMut<T, ..>`: the group's size is `devices = W` of #[kernel]",
            );
        } else if peers.is_some() {
            ctx.type_error(at, Code::PeersParam, "`#[peers]` is written twice", "write it once");
        }
        peers.get_or_insert(at);
    }
    (peers, others)
}
