//! Kernels of several devices: `devices = W` in the attribute, `#[peers]` parameters (one copy
//! per device of the group, each reachable from every device), `device_id()`, `device_count()`
//! and `remote(buf, rank)`, another device's copy of a `#[peers]` parameter.
//!
//! The model is Pallas's: `device_id()` is `lax.axis_index`, `remote(buf, rank)` is
//! `plgpu.remote_ref(buf, rank)`, and a semaphore of a `#[peers]` array is signalled on another
//! device and waited for on this one (`semaphore`).

use super::{scalar, Checker, GmemTy, Ty};
use crate::codes::Code;
use crate::diag::Loc;
use crate::syntax::ast::{Expr, Param, ParamTy};
use crate::types::DType;
use tessel_ir::legality::{MAX_DEVICES, MAX_PARAM_BYTES};

/// `devices = W` names a group of 1 to `MAX_DEVICES` devices.
pub(super) fn check_devices_attr(ck: &mut Checker) {
    let Some(w) = &ck.kernel.attr.devices else { return };
    if w.value == 0 || w.value > MAX_DEVICES {
        ck.ctx.type_error(
            w.span,
            Code::KernelAttribute,
            format!("a kernel runs on 1 to {MAX_DEVICES} devices, got devices = {}", w.value),
            "`devices = W` is the size of the group the kernel is launched on",
        );
    }
}

/// The kernel's `W`; else `what` (at `at`) is reported: it means something only on a group.
fn needs_devices(ck: &mut Checker, at: impl Into<Loc>, what: &str) -> Option<u32> {
    let w = ck.kernel.attr.devices.as_ref().map(|d| d.value);
    if w.is_none() {
        ck.ctx.type_error(
            at,
            Code::NeedsDevices,
            format!("{what} needs a kernel of several devices"),
            "add `devices = W` to #[kernel] (the size of the group it is launched on)",
        );
    }
    w
}

/// `#[peers]` is on a global array, of a kernel with `devices = W`.
pub(super) fn check_peers_param(ck: &mut Checker, p: &Param) {
    let Some(at) = p.peers else { return };
    match &p.ty {
        ParamTy::Gmem { .. } => {
            needs_devices(ck, at, "a `#[peers]` parameter");
        }
        ParamTy::Scalar(d) => ck.ctx.type_error(
            at,
            Code::PeersParam,
            format!("`#[peers]` is on the scalar `{}`: only a global array has a copy on every device", p.name),
            format!("remove `#[peers]`, or make `{}` a `GmemMut<{}, N>` array", p.name, d.value),
        ),
    }
}

/// `device_id()`: this device's rank in the group, an `i32`.
pub(super) fn check_device_id(ck: &mut Checker, e: &Expr) -> Ty {
    match needs_devices(ck, e, "`device_id()`") {
        Some(_) => Ty::Scalar(DType::I32),
        None => Ty::Error,
    }
}

/// `device_count()`: the group's size `W`, an `i32` known when the kernel compiles.
pub(super) fn check_device_count(ck: &mut Checker, e: &Expr) -> Ty {
    match needs_devices(ck, e, "`device_count()`") {
        Some(_) => Ty::Scalar(DType::I32),
        None => Ty::Error,
    }
}

/// `remote(buf, rank)`: `buf` is a `#[peers]` array itself (a parameter, or a kernel function's
/// parameter bound to one), and `rank` a 32-bit integer, a constant one in `0..W`. The view is
/// `buf`'s type, another device's copy.
pub(super) fn check_remote(ck: &mut Checker, e: &Expr, gmem: &Expr, rank: &Expr) -> Ty {
    let Some(w) = needs_devices(ck, e, "`remote(..)`") else {
        // Its operands report nothing more: without a group, nothing else about it is wrong.
        ck.check_expr(gmem);
        ck.check_expr(rank);
        return Ty::Error;
    };
    let base = ck.check_expr(gmem);
    let rank_ok = check_rank(ck, rank, w);
    let g = match base {
        Ty::Gmem(g) if g.remote => {
            ck.ctx.type_error(
                gmem,
                Code::RemoteOperand,
                format!("this is already another device's copy of `{}`", g.name),
                format!("name the parameter itself: `remote({}, rank)`", g.name),
            );
            return Ty::Error;
        }
        Ty::Gmem(g) if !g.peers => {
            let ty = Ty::Gmem(g.clone());
            ck.ctx.type_error(
                gmem,
                Code::RemoteOperand,
                format!(
                    "`{}` is not a `#[peers]` parameter: only a symmetric array has a copy on every device",
                    g.name
                ),
                format!("declare it `#[peers] {}: {ty}`, and pass a `SymmetricTensor` for it", g.name),
            );
            return Ty::Error;
        }
        Ty::Gmem(g) => g,
        Ty::Tile(g, _) => {
            ck.ctx.type_error(
                gmem,
                Code::RemoteOperand,
                "`remote(..)` takes a `#[peers]` array, not a tile of one",
                format!("take the tile of the peer's copy: `remote({}, rank).tile([..])`", g.name),
            );
            return Ty::Error;
        }
        Ty::Error => return Ty::Error,
        other => {
            ck.ctx.type_error(
                gmem,
                Code::RemoteOperand,
                format!("`remote(..)` takes a `#[peers]` global array, got {other}"),
                "pass a kernel parameter declared `#[peers] buf: GmemMut<T, ..>`",
            );
            return Ty::Error;
        }
    };
    match rank_ok {
        true => Ty::Gmem(GmemTy { remote: true, ..g }),
        false => Ty::Error,
    }
}

/// A device rank is a 32-bit integer (like `program_id`), and a constant one lies in the group.
fn check_rank(ck: &mut Checker, rank: &Expr, w: u32) -> bool {
    let ty = ck.check_expr(rank);
    match ty {
        Ty::Scalar(DType::I32 | DType::U32) => {}
        Ty::Error => return false,
        other => {
            ck.ctx.type_error(
                rank,
                Code::DeviceRank,
                format!("a device rank is an i32 or u32, got {other}"),
                "compute it from `device_id()`: `(device_id() + 1) % W`",
            );
            return false;
        }
    }
    match scalar::eval_const(ck, rank) {
        Some(r) if !(0..i64::from(w)).contains(&r) => {
            ck.ctx.type_error(
                rank,
                Code::DeviceRank,
                format!("rank {r} is outside the group of {w} devices"),
                format!("a rank is 0 to {}", w - 1),
            );
            false
        }
        _ => true,
    }
}

/// The entry's parameters fit the parameter space: the peer addresses (8 bytes a device per
/// `#[peers]` parameter) and the peer tensor maps (128 bytes a device per map) grow with `W`.
pub(crate) fn check_param_space(
    ctx: &crate::diag::Ctxt,
    kernel: &crate::syntax::ast::Kernel,
    program: &tessel_ir::Program,
) {
    let bytes = program.param_bytes();
    if bytes <= MAX_PARAM_BYTES {
        return;
    }
    let at = kernel.attr.devices.as_ref().map_or_else(|| kernel.name.span(), |d| d.span);
    let maps = program.tensor_maps.iter().filter(|m| m.peers).count();
    ctx.type_error(
        at,
        Code::ParamSpace,
        format!(
            "the kernel's parameters take {bytes} bytes, more than the {MAX_PARAM_BYTES} an entry takes \
             ({maps} tensor maps of peers' tiles take {} bytes each)",
            128 * program.device_count()
        ),
        "use fewer devices, or fewer TMA copies of `remote(..)` tiles with distinct boxes",
    );
}
