//! TMA copies between global and shared memory (PTX ISA #data-movement-and-conversion-instructions-
//! cp-async-bulk-tensor; checked on the H200). Copies are issued by one thread per warpgroup.
//!
//! A swizzled buffer wider than one swizzle span is stored as column blocks of the span's width
//! (`[C / W][R][W]`), so its copy is one TMA instruction per column block.

use super::gen::Gen;
use super::value::Val;
use super::writer::Class;
use crate::legality;
use crate::typeck::SmemTy;
use tessel_ir::ops::GmemReduce;
use tessel_ir::program::Expr;

/// The pieces of one tiled copy.
struct Copy {
    /// Tensor map generic address (`.b64`).
    tmap: String,
    /// Element coordinates of the tile's first element, innermost first (`.b32`).
    coords: Vec<String>,
    /// Shared address of the buffer (`.b32`).
    smem: String,
    /// Column blocks: (element offset along the innermost dimension, byte offset in shared memory).
    blocks: Vec<(i64, i64)>,
    rank: usize,
}

fn plan(g: &mut Gen, map: usize, tile: Val, buffer: Val) -> Option<(Copy, SmemTy)> {
    let (Val::Tile { index, peer, .. }, Val::Smem { addr, ty }) = (tile, buffer) else { return None };
    let tmap = super::devices::tensor_map(g, map, peer.as_deref());
    let stored = ty.stored.clone();
    let rank = stored.len();
    let mut coords = Vec::new();
    for d in (0..rank).rev() {
        let c = g.w.reg(Class::B32);
        g.w.ins(format!("mul.lo.s32 {c}, {}, {}", index[d], stored[d]));
        coords.push(c);
    }
    let bytes = ty.dtype.bits() as i64;
    let cols = stored[rank - 1];
    let width = if ty.swizzle.is_some() { legality::swizzle_elems(ty.swizzle, ty.dtype).min(cols) } else { cols };
    let rows: i64 = stored[..rank - 1].iter().product();
    let blocks = (0..cols / width).map(|kb| (kb * width, kb * width * rows * bytes / 8)).collect();
    Some((Copy { tmap, coords, smem: addr, blocks, rank }, ty))
}

fn coord_list(g: &mut Gen, c: &Copy, inner_offset: i64, row_offset: Option<&str>) -> String {
    let mut parts = Vec::new();
    for (d, reg) in c.coords.iter().enumerate() {
        let r = g.w.reg(Class::B32);
        match (d, row_offset) {
            (0, _) => g.w.ins(format!("add.s32 {r}, {reg}, {inner_offset}")),
            (1, Some(off)) => g.w.ins(format!("add.s32 {r}, {reg}, {off}")),
            _ => g.w.ins(format!("mov.b32 {r}, {reg}")),
        }
        parts.push(r);
    }
    format!("{{{}}}", parts.join(", "))
}

/// `copy_gmem_to_smem(src, dst, bar)`: `mbarrier.arrive.expect_tx` with the buffer's bytes (one
/// arrival), then the copies, completing on `bar`. With `multicast`, each program of the cluster
/// loads its share of the rows for every program, so each barrier still receives the whole buffer.
pub fn emit_load(g: &mut Gen, map: usize, src: &Expr, dst: &Expr, bar: &Expr, multicast: bool) -> Val {
    let (tile, buffer) = (g.expr(src), g.expr(dst));
    let Val::Barrier { addr: bar, .. } = g.expr(bar) else {
        return g.internal("a TMA load completing on something other than a barrier");
    };
    let Some((copy, ty)) = plan(g, map, tile, buffer) else {
        return g.internal("a TMA load between something other than a tile and a shared buffer");
    };
    let total = ty.bytes();
    let skip = g.w.label("tma_issued");
    g.w.ins(format!("@!{} bra {skip}", g.lanes.leader));
    g.w.ins(format!("mbarrier.arrive.expect_tx.shared::cta.b64 _, [{bar}], {total}"));
    let cluster = g.prog.cluster_size() as i64;
    let rank_reg = if multicast { Some(multicast_share(g, &ty, cluster)) } else { None };
    for (inner, byte_off) in copy.blocks.clone() {
        let dst = g.w.reg(Class::B32);
        let row_off = rank_reg.as_ref().map(|(rows, _)| rows.clone());
        let coords = coord_list(g, &copy, inner, row_off.as_deref());
        match &rank_reg {
            Some((_, bytes)) => {
                g.w.ins(format!("add.u32 {dst}, {}, {byte_off}", copy.smem));
                g.w.ins(format!("add.u32 {dst}, {dst}, {bytes}"));
                let mask = (1u32 << cluster) - 1;
                g.w.ins(format!(
                    "cp.async.bulk.tensor.{}d.shared::cluster.global.mbarrier::complete_tx::bytes.multicast::cluster [{dst}], [{}, {coords}], [{bar}], {mask}",
                    copy.rank, copy.tmap
                ));
            }
            None => {
                g.w.ins(format!("add.u32 {dst}, {}, {byte_off}", copy.smem));
                g.w.ins(format!(
                    "cp.async.bulk.tensor.{}d.shared::cluster.global.mbarrier::complete_tx::bytes [{dst}], [{}, {coords}], [{bar}]",
                    copy.rank, copy.tmap
                ));
            }
        }
    }
    g.w.put_label(&skip);
    Val::Unit
}

/// This program's share of a multicast copy: its first row and that row's byte offset (registers).
fn multicast_share(g: &mut Gen, ty: &SmemTy, cluster: i64) -> (String, String) {
    let rank = ty.stored.len();
    let rows = ty.stored[rank - 2] / cluster;
    let row_bytes = ty.stored[rank - 1].min(if ty.swizzle.is_some() {
        legality::swizzle_elems(ty.swizzle, ty.dtype)
    } else {
        i64::MAX
    }) * ty.dtype.bits() as i64
        / 8;
    let r = g.w.reg(Class::B32);
    g.w.ins(format!("mov.u32 {r}, %cluster_ctarank"));
    let (row_off, byte_off) = (g.w.reg(Class::B32), g.w.reg(Class::B32));
    g.w.ins(format!("mul.lo.u32 {row_off}, {r}, {rows}"));
    g.w.ins(format!("mul.lo.u32 {byte_off}, {row_off}, {row_bytes}"));
    (row_off, byte_off)
}

/// `copy_smem_to_gmem(src, dst)`: a bulk-group TMA store from one thread (the user has made the
/// writes visible with `commit_smem()`); with `reduce`, `cp.reduce.async.bulk.tensor` of that
/// operation, which the same bulk-group commit and waits complete.
pub fn emit_store(g: &mut Gen, map: usize, src: &Expr, dst: &Expr, reduce: Option<GmemReduce>) -> Val {
    let (buffer, tile) = (g.expr(src), g.expr(dst));
    let Some((copy, _)) = plan(g, map, tile, buffer) else {
        return g.internal("a TMA store between something other than a shared buffer and a tile");
    };
    let skip = g.w.label("tma_stored");
    g.w.ins(format!("@!{} bra {skip}", g.lanes.leader));
    for (inner, byte_off) in copy.blocks.clone() {
        let src = g.w.reg(Class::B32);
        g.w.ins(format!("add.u32 {src}, {}, {byte_off}", copy.smem));
        let coords = coord_list(g, &copy, inner, None);
        let (rank, tmap) = (copy.rank, &copy.tmap);
        g.w.ins(match reduce {
            None => format!("cp.async.bulk.tensor.{rank}d.global.shared::cta.bulk_group [{tmap}, {coords}], [{src}]"),
            Some(op) => format!(
                "cp.reduce.async.bulk.tensor.{rank}d.global.shared::cta.{}.tile.bulk_group [{tmap}, {coords}], [{src}]",
                op.ptx()
            ),
        });
    }
    g.w.ins("cp.async.bulk.commit_group");
    g.w.put_label(&skip);
    Val::Unit
}

/// `copy_smem_to_peer(src, dst, bar, rank)`: one thread maps `dst` and `bar` into the shared window
/// of program `rank` of the cluster (`mapa`), arrives on that barrier expecting the bytes, and
/// issues a bulk copy (`cp.async.bulk.shared::cluster.shared::cta`) that completes on it. The user
/// has made the source's writes visible with `commit_smem()`, as for a TMA store.
pub fn emit_to_peer(g: &mut Gen, src: &Expr, dst: &Expr, bar: &Expr, rank: &Expr) -> Val {
    let (Val::Smem { addr: from, ty }, Val::Smem { addr: to, .. }) = (g.expr(src), g.expr(dst)) else {
        return g.internal("a peer copy between something other than shared buffers");
    };
    let Val::Barrier { addr: bar, .. } = g.expr(bar) else {
        return g.internal("a peer copy completing on something other than a barrier");
    };
    let rank = g.scalar_reg(rank);
    let bytes = ty.bytes();
    let skip = g.w.label("peer_copied");
    g.w.ins(format!("@!{} bra {skip}", g.lanes.leader));
    let (remote_to, remote_bar) = (g.w.reg(Class::B32), g.w.reg(Class::B32));
    g.w.ins(format!("mapa.shared::cluster.u32 {remote_to}, {to}, {rank}"));
    g.w.ins(format!("mapa.shared::cluster.u32 {remote_bar}, {bar}, {rank}"));
    g.w.ins(format!("mbarrier.arrive.expect_tx.shared::cluster.b64 _, [{remote_bar}], {bytes}"));
    g.w.ins(format!(
        "cp.async.bulk.shared::cluster.shared::cta.mbarrier::complete_tx::bytes [{remote_to}], [{from}], {bytes}, [{remote_bar}]"
    ));
    g.w.put_label(&skip);
    Val::Unit
}
