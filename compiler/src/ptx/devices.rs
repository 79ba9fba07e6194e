//! Kernels of several devices (`devices = W`): the device's rank, other devices' copies of the
//! `#[peers]` parameters, and their tensor maps.
//!
//! The entry takes, after the ABI's other parameters (`Program::abi`), `.param .u32 device_rank`
//! and, per `#[peers]` parameter `buf`, `.param .align 8 .b8 peers_buf[8 * W]`: the global address
//! of every rank's copy, in rank order (one process maps every copy into every device's address
//! space, so one address names a copy on every device). A tensor map of peers' tiles
//! (`TensorMapUse::peers`) is `.param .align 64 .b8 tmap_<i>[128 * W]`, rank `r`'s map at
//! `128 * r`. The local view of a `#[peers]` parameter is its own `.param .u64`, as for any array.
//!
//! A kernel parameter's address in the `.param` space is taken with `mov` and read with `ld.param`
//! at a computed offset (PTX ISA #kernel-function-parameters: the address of a kernel parameter
//! may be moved into a register, and kernel parameters are read through `ld.param`, directly or
//! through such an address, as LLVM's NVPTX back end notes in `NVPTXLowerArgs.cpp`); a tensor map
//! is the generic address of its bytes (`cvta.param`), as every tensor map is.

use super::gen::Gen;
use super::value::Val;
use super::writer::Class;
use crate::types::DType;
use tessel_ir::program::Expr;

/// The name of the entry parameter holding `buf`'s peer addresses.
pub fn peers_param(name: &str) -> String {
    format!("peers_{name}")
}

/// The name of the entry parameter holding the device's rank.
pub const DEVICE_RANK: &str = "device_rank";

/// `device_id()`: the rank the launch passed, read where it is used (the `.param` space is
/// cached, and a register per use keeps it out of mutable names' registers).
pub fn emit_device_id(g: &mut Gen) -> Val {
    let r = g.w.reg(Class::B32);
    g.w.ins(format!("ld.param.u32 {r}, [{DEVICE_RANK}]"));
    Val::Scalar { reg: r, dtype: DType::I32 }
}

/// `remote(buf, rank)`: rank `rank`'s address of `buf` from `peers_buf`. A rank outside the group
/// (computed at run time: typeck rejects a constant one) would read past the parameter and
/// address memory no device mapped, so the program traps instead: the launch fails with an
/// illegal-instruction error rather than reading or writing a wrong address.
pub fn emit_remote(g: &mut Gen, gmem: &Expr, rank: &Expr) -> Val {
    let Val::Gmem { param, .. } = g.expr(gmem) else {
        return g.internal("`remote` of something other than a global array");
    };
    let Some(name) = g.prog.params.get(param).map(|p| p.name.clone()) else {
        return g.internal(format!("`remote` of parameter {param}"));
    };
    let w = g.prog.device_count();
    let r = g.scalar_reg(rank);
    let outside = g.w.reg(Class::Pred);
    g.w.ins(format!("setp.ge.u32 {outside}, {r}, {w}"));
    g.w.ins(format!("@{outside} trap"));
    let (table, entry, raw, addr) =
        (g.w.reg(Class::B64), g.w.reg(Class::B64), g.w.reg(Class::B64), g.w.reg(Class::B64));
    g.w.ins(format!("mov.u64 {table}, {}", peers_param(&name)));
    g.w.ins(format!("mad.wide.u32 {entry}, {r}, 8, {table}"));
    g.w.ins(format!("ld.param.u64 {raw}, [{entry}]"));
    g.w.ins(format!("cvta.to.global.u64 {addr}, {raw}"));
    Val::Gmem { param, addr, peer: Some(r) }
}

/// The generic address of tensor map `map` for a copy of a tile on the device `peer` (its rank's
/// map within a peers map), or of the map itself.
pub fn tensor_map(g: &mut Gen, map: usize, peer: Option<&str>) -> String {
    let Some(base) = g.tmaps.get(map).cloned() else {
        g.internal(format!("tensor map {map} of {}", g.tmaps.len()));
        return String::new();
    };
    let peers = g.prog.tensor_maps.get(map).is_some_and(|m| m.peers);
    match (peers, peer) {
        (false, None) => base,
        (true, Some(rank)) => {
            let r = g.w.reg(Class::B64);
            g.w.ins(format!("mad.wide.u32 {r}, {rank}, 128, {base}"));
            r
        }
        _ => {
            g.internal(format!("tensor map {map} (of peers: {peers}) for a tile of peer {peer:?}"));
            base
        }
    }
}
