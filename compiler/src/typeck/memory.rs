//! Views of memory and the copies between memories: global tiles, `.at`, `.slice`, transposes (E16),
//! TMA copies and barriers.

use super::{scalar, AccTy, BarrierTy, Checker, DimVal, GmemTy, RegsTy, SmemTy, Ty};
use crate::codes::Code;
use crate::diag::{shape_str, Diag, Loc};
use crate::legality::{self, TMA_ALIGN_BYTES, TMA_MAX_BOX};
use crate::syntax::ast::{Expr, GmemReduce, ShapeExpr, SliceArg, Spanned};
use crate::types::{DType, Layout};

/// `a.tile([i, k])` or `a.tile([i, k], [rows, cols])`.
pub(super) fn check_tile(ck: &mut Checker, gmem: &Expr, index: &[Expr], shape: Option<&ShapeExpr>) -> Ty {
    let base = ck.check_expr(gmem);
    for i in index {
        let t = ck.check_expr(i);
        scalar::expect_index(ck, i, &t, "a tile index");
    }
    let shape = match shape {
        Some(s) => match ck.static_shape(s) {
            Some(v) => Some(v),
            None => return Ty::Error,
        },
        None => None,
    };
    match base {
        Ty::Gmem(g) => {
            if index.len() != g.shape.len() {
                let at = match (index.first(), index.last()) {
                    (Some(first), Some(last)) => Loc::new(first.span, last.end),
                    _ => gmem.into(),
                };
                ck.ctx.type_error(
                    at,
                    Code::TileShape,
                    format!("`{}` has {} dimensions but the tile index has {}", g.name, g.shape.len(), index.len()),
                    "give one block index per dimension",
                );
                return Ty::Error;
            }
            if let Some(s) = &shape {
                if s.len() != g.shape.len() {
                    ck.ctx.type_error(
                        gmem,
                        Code::TileShape,
                        format!("the tile shape {} has another rank than `{}`", shape_str(s), g.name),
                        "give one extent per dimension",
                    );
                    return Ty::Error;
                }
                check_tile_divides(ck, &g, s, gmem);
            }
            Ty::Tile(g, shape)
        }
        Ty::Error => Ty::Error,
        other => {
            ck.ctx.type_error(
                gmem,
                Code::OperandKind,
                format!("`.tile` takes a global array, got {other}"),
                "tiles are blocks of `Gmem`/`GmemMut` parameters",
            );
            Ty::Error
        }
    }
}

/// A static global dimension must be a whole number of tiles; runtime ones are recorded and checked
/// at launch, unless `ragged(..)` names them.
fn check_tile_divides(ck: &mut Checker, g: &GmemTy, shape: &[i64], span: impl Into<Loc> + Copy) {
    for (axis, (d, t)) in g.shape.iter().zip(shape).enumerate() {
        match d {
            DimVal::Static(v) if v % t != 0 => ck.ctx.type_error(
                span,
                Code::TileShape,
                format!("dimension {axis} of `{}` is {v}, not a multiple of the tile's {t}", g.name),
                "tiles cover the array exactly",
            ),
            DimVal::Static(_) => {}
            // The last tile along a ragged dimension may overhang it (TMA fills and clips).
            DimVal::Runtime(name) if ck.facts.ragged.contains(name) => {}
            DimVal::Runtime(name) => {
                let need = (name.clone(), *t);
                if !ck.facts.divisibility.contains(&need) {
                    ck.facts.divisibility.push(need);
                }
            }
        }
    }
}

/// Records the tensor map a TMA call uses.
///
/// A multicast copy is split by rows across the cluster's programs (each loads its share for all), so
/// its box has `rows / cluster size` rows.
fn use_tensor_map(ck: &mut Checker, call: &Expr, g: &GmemTy, s: &SmemTy, multicast: u32) {
    let mut box_shape = s.stored.clone();
    let n = box_shape.len();
    if multicast > 1 && n >= 2 {
        box_shape[n - 2] /= multicast as i64;
    }
    if s.swizzle.is_some() {
        let width = crate::legality::swizzle_elems(s.swizzle, s.dtype);
        if let Some(last) = box_shape.last_mut() {
            *last = (*last).min(width);
        }
    }
    let map = super::TensorMapUse { param: g.param, box_shape, swizzle: s.swizzle, dtype: g.dtype, peers: g.remote };
    let index = match ck.facts.tensor_maps.iter().position(|m| *m == map) {
        Some(i) => i,
        None => {
            ck.facts.tensor_maps.push(map);
            ck.facts.tensor_maps.len() - 1
        }
    };
    ck.facts.tma_of.insert(call.id, index);
}

/// `r.at(i)`: one slab of a shared buffer (first dimension), or one barrier of an array.
pub(super) fn check_at(ck: &mut Checker, base: &Expr, index: &Expr) -> Ty {
    let bt = ck.check_expr(base);
    let it = ck.check_expr(index);
    let known = scalar::expect_index(ck, index, &it, "an `.at` index").then(|| scalar::eval_const(ck, index)).flatten();
    match bt {
        Ty::Smem(s) if s.stored.len() >= 2 && !(s.transposed && s.stored.len() == 2) => {
            if !check_at_index(ck, index, known, s.stored[0], "a buffer of {len} slabs along its first dimension") {
                return Ty::Error;
            }
            let mut stored = s.stored.clone();
            stored.remove(0);
            Ty::Smem(SmemTy { stored, ..s })
        }
        Ty::Barrier(BarrierTy { array: Some(n), .. })
            if !check_at_index(ck, index, known, n.into(), "an array of {len} barriers") =>
        {
            Ty::Error
        }
        Ty::Barrier(b) if b.array.is_some() => Ty::Barrier(BarrierTy { array: None, ..b }),
        Ty::Error => Ty::Error,
        other => {
            ck.ctx.type_error(base, Code::OperandKind, format!("`.at(i)` selects a slab of a shared buffer of 2 or more dimensions or a barrier of an array, not {other}"), "index pipeline stages of `Smem<T, STAGES, ..>` or `Barrier<arrivals, STAGES>`");
            Ty::Error
        }
    }
}

/// A compile-time `.at` index lies inside the array (a runtime one is the kernel's business).
fn check_at_index(ck: &mut Checker, index: &Expr, known: Option<i64>, len: i64, what: &str) -> bool {
    match known {
        Some(i) if !(0..len).contains(&i) => {
            ck.ctx.type_error(
                index,
                Code::IndexOutOfRange,
                format!("index {i} is out of range for {}", what.replace("{len}", &len.to_string())),
                format!("`.at(i)` takes 0 to {}", len - 1),
            );
            false
        }
        _ => true,
    }
}

/// `r.slice([.., a..b])`: static windows of shared buffers (E16) and accumulators (B3 on store).
pub(super) fn check_slice(ck: &mut Checker, base: &Expr, args: &[SliceArg]) -> Ty {
    let bt = ck.check_expr(base);
    let shape = match &bt {
        Ty::Smem(s) => s.shape(),
        Ty::Acc(a) => a.shape.clone(),
        Ty::Regs(r) if r.layout == Layout::Wgmma => r.shape.clone(),
        Ty::Regs(r) => {
            ck.ctx.type_error(
                base,
                Code::View,
                format!(
                    "only a `Layout::Wgmma` array can be sliced: in `Layout::{:?}`, a window's elements would have to move between threads",
                    r.layout
                ),
                "slice a `Layout::Wgmma` array (whole 64-row, 8-column blocks), or the memory it was loaded from",
            );
            return Ty::Error;
        }
        Ty::Error => return Ty::Error,
        other => {
            ck.ctx.type_error(
                base,
                Code::OperandKind,
                format!("`.slice` views shared buffers, accumulators and register arrays, not {other}"),
                "slice an `Smem`, an `Acc` or a `Layout::Wgmma` array",
            );
            return Ty::Error;
        }
    };
    if args.len() != shape.len() {
        ck.ctx.type_error(
            base,
            Code::View,
            format!("the value has {} dimensions but the slice has {}", shape.len(), args.len()),
            "give one range (or `..`) per dimension",
        );
        return Ty::Error;
    }
    let mut out = shape.clone();
    let mut touched = Vec::new();
    for (i, a) in args.iter().enumerate() {
        if let SliceArg::Range { start, end, .. } = a {
            let (Some(s), Some(e)) = (const_of(ck, start), const_of(ck, end)) else { return Ty::Error };
            let at = Loc::new(start.span, end.end);
            if s < 0 || e <= s || e > shape[i] {
                ck.ctx.type_error(
                    at,
                    Code::View,
                    format!("{s}..{e} is not inside 0..{}", shape[i]),
                    "slice within the dimension",
                );
                return Ty::Error;
            }
            out[i] = e - s;
            if out[i] != shape[i] {
                touched.push(Window { axis: i, start: s, at });
            }
        }
    }
    match bt {
        Ty::Smem(s) => slice_smem(ck, s, out, &touched),
        Ty::Acc(a) if whole_wgmma_blocks(ck, "an accumulator", &out, &touched) => {
            Ty::Acc(AccTy { shape: out, sliced: a.sliced || !touched.is_empty(), ..a })
        }
        Ty::Regs(r) if whole_wgmma_blocks(ck, "a register array's", &out, &touched) => {
            Ty::Regs(RegsTy { shape: out, ..r })
        }
        _ => Ty::Error,
    }
}

/// One sliced dimension of a view: its axis, where the window starts, and the range written.
struct Window {
    axis: usize,
    start: i64,
    at: Loc,
}

fn const_of(ck: &mut Checker, e: &Expr) -> Option<i64> {
    if ck.check_expr(e).is_error() {
        return None;
    }
    let v = scalar::eval_known(ck, e);
    match v {
        Some(v) => {
            ck.facts.slice_bounds.insert(e.id, v);
        }
        None => ck.ctx.type_error(
            e,
            Code::View,
            "slice bounds must be known at compile time",
            "use literals, consts, unrolled loop counters, and immutable `let`s of them",
        ),
    }
    v
}

/// E16 (second form): the swizzled (stored minor) dimension is sliced only in whole column blocks
/// (a buffer wider than one swizzled row is stored as blocks of that width, `W` elements: a
/// window of whole blocks is an offset, any other cuts the swizzle's rows); and a window across
/// the rows of a swizzled buffer starts on a swizzle atom (8 rows), where WGMMA descriptors and
/// the swizzle pattern line up (checked on the H200: tessel's descriptors carry no base offset).
fn slice_smem(ck: &mut Checker, s: SmemTy, view: Vec<i64>, touched: &[Window]) -> Ty {
    let n = view.len();
    let (minor_axis, row_axis) = match (s.transposed && n >= 2, n) {
        (true, _) => (n - 2, Some(n - 1)),
        (false, 1) => (0, None),
        (false, _) => (n - 1, Some(n - 2)),
    };
    if s.swizzle.is_some() {
        let width = legality::swizzle_elems(s.swizzle, s.dtype);
        let whole_blocks = |w: &Window| n >= 2 && w.start % width == 0 && view[w.axis] % width == 0;
        if let Some(w) = touched.iter().find(|w| w.axis == minor_axis && !whole_blocks(w)) {
            ck.ctx.error(w.at, Diag::SliceSwizzled { width });
            return Ty::Error;
        }
        if let Some(w) = touched.iter().find(|w| Some(w.axis) == row_axis && w.start % 8 != 0) {
            ck.ctx.type_error(
                w.at,
                Code::View,
                format!("a window of a swizzled buffer starts at row {}, not a multiple of 8", w.start),
                "the swizzle pattern repeats every 8 rows: start the window at a multiple of 8 rows",
            );
            return Ty::Error;
        }
    }
    let mut stored = view;
    if s.transposed && n >= 2 {
        stored.swap(n - 1, n - 2);
    }
    Ty::Smem(SmemTy { stored, sliced: s.sliced || !touched.is_empty(), ..s })
}

/// A window of a WGMMA-layout value (an accumulator, or a register array in its layout) covers
/// whole fragment blocks, 64 rows by 8 columns, in shape and in offset: then each thread holds
/// the window's elements in the same registers as the whole value's, and slicing moves nothing.
fn whole_wgmma_blocks(ck: &mut Checker, what: &str, shape: &[i64], touched: &[Window]) -> bool {
    for w in touched {
        let block = if w.axis == 0 { 64 } else { 8 };
        if w.start % block != 0 || shape[w.axis] % block != 0 {
            ck.ctx.type_error(
                w.at,
                Code::View,
                format!(
                    "{what} window along {} must start and end on a multiple of {block}",
                    if w.axis == 0 { "M" } else { "N" }
                ),
                "slice whole 64-row, 8-column blocks",
            );
            return false;
        }
    }
    true
}

/// `r.t()` and `r.transpose([..])` (E16, first form).
pub(super) fn check_transpose(ck: &mut Checker, base: &Expr, perm: Option<&Spanned<Vec<usize>>>) -> Ty {
    let bt = ck.check_expr(base);
    let s = match bt {
        Ty::Smem(s) => s,
        Ty::Error => return Ty::Error,
        other => {
            ck.ctx.type_error(
                base,
                Code::OperandKind,
                format!("transposes view shared buffers, not {other}"),
                "transpose an `Smem` operand",
            );
            return Ty::Error;
        }
    };
    let n = s.stored.len();
    if n < 2 {
        ck.ctx.type_error(base, Code::View, "a 1-D buffer has nothing to transpose", "transpose 2-D views");
        return Ty::Error;
    }
    if let Some(p) = perm.filter(|p| !is_permutation(&p.value, n)) {
        ck.ctx.error(p.span, Diag::NotAPermutation { perm: p.value.clone(), rank: n });
        return Ty::Error;
    }
    let swap_last_two = match perm {
        None => true,
        Some(p) => match perm_kind(&p.value, n) {
            Some(swap) => swap,
            None if s.swizzle.is_some() && moves_minor(&p.value, n) => {
                ck.ctx.error(p.span, Diag::TransposeSwizzled);
                return Ty::Error;
            }
            None => {
                ck.ctx.type_error(
                    p.span,
                    Code::View,
                    format!("tessel views may swap only the last two of {n} dimensions"),
                    format!("write `.t()`, or a permutation that keeps dimensions 0..{} in place", n - 2),
                );
                return Ty::Error;
            }
        },
    };
    Ty::Smem(SmemTy { transposed: s.transposed ^ swap_last_two, ..s })
}

/// Whether `p` lists each of the dimensions `0..n` once.
fn is_permutation(p: &[usize], n: usize) -> bool {
    let mut seen = vec![false; n];
    p.len() == n && p.iter().all(|&d| d < n && !std::mem::replace(&mut seen[d], true))
}

/// `Some(false)` for the identity, `Some(true)` for a swap of the last two, else `None`.
fn perm_kind(p: &[usize], n: usize) -> Option<bool> {
    if p.len() != n || p[..n - 2].iter().enumerate().any(|(i, d)| *d != i) {
        return None;
    }
    match (p[n - 2], p[n - 1]) {
        (a, b) if a == n - 2 && b == n - 1 => Some(false),
        (a, b) if a == n - 1 && b == n - 2 => Some(true),
        _ => None,
    }
}

/// Whether a permutation moves the last (swizzled) dimension out of the last two positions.
fn moves_minor(p: &[usize], n: usize) -> bool {
    p[n - 1] != n - 1 && p[n - 2] != n - 1
}

/// `copy_gmem_to_smem(src, dst, bar)`: a TMA load that completes on `bar`.
pub(super) fn check_copy_in(
    ck: &mut Checker,
    call: &Expr,
    src: &Expr,
    dst: &Expr,
    bar: &Expr,
    multicast: Option<Loc>,
) -> Ty {
    let st = ck.check_expr(src);
    let dt = ck.check_expr(dst);
    check_single_barrier(ck, bar);
    if let Some(span) = multicast {
        needs_cluster(ck, span, "multicast");
    }
    match (st, dt) {
        (Ty::Tile(g, shape), Ty::Smem(s)) => {
            let share = multicast.map_or(1, |_| ck.kernel.attr.cluster_size());
            let rows = s.stored.len().checked_sub(2).map_or(1, |i| s.stored[i]);
            if share > 1 && (s.stored.len() < 2 || rows % share as i64 != 0) {
                let at = multicast.unwrap_or_else(|| dst.span.into());
                ck.ctx.type_error(at, Code::TmaCopy, format!("a multicast copy splits the buffer's {rows} rows across the cluster's {share} programs; they must divide evenly"), "use a buffer whose row count is a multiple of the cluster size");
            } else if check_tma(ck, &g, shape.as_deref(), &s, src.into(), dst.into()) {
                use_tensor_map(ck, call, &g, &s, share);
            }
        }
        (Ty::Error, _) | (_, Ty::Error) => {}
        (Ty::Tile(..), other) => ck.ctx.type_error(
            dst,
            Code::OperandKind,
            format!("copy_gmem_to_smem writes a shared-memory buffer, got {other}"),
            "allocate `Smem<..>` in run_scoped",
        ),
        (other, _) => ck.ctx.type_error(
            src,
            Code::OperandKind,
            format!("copy_gmem_to_smem reads a global tile, got {other}"),
            "write `a.tile([i, k])`",
        ),
    }
    Ty::Unit
}

/// `copy_smem_to_gmem(src, dst)`: a TMA store into a `GmemMut` tile; with `reduce = Reduce::Op`,
/// of a dtype the operation combines (`legality::TMA_REDUCE`).
pub(super) fn check_copy_out(
    ck: &mut Checker,
    call: &Expr,
    src: &Expr,
    dst: &Expr,
    reduce: Option<&Spanned<GmemReduce>>,
) -> Ty {
    let st = ck.check_expr(src);
    let dt = ck.check_expr(dst);
    match (st, dt) {
        (Ty::Smem(s), Ty::Tile(g, shape)) => {
            if !g.mutable {
                ck.ctx.type_error(
                    dst,
                    Code::ReadOnly,
                    format!("`{}` is read-only (`Gmem`)", g.name),
                    format!("declare the parameter `{}: GmemMut<..>`", g.name),
                );
            } else {
                // Both checks run, so that a box and a reduction both wrong are both reported.
                let box_ok = check_tma(ck, &g, shape.as_deref(), &s, dst.into(), src.into());
                let reduce_ok = reduce.is_none_or(|op| check_reduce_dtype(ck, op, &g));
                if box_ok && reduce_ok {
                    use_tensor_map(ck, call, &g, &s, 1);
                }
            }
        }
        (Ty::Error, _) | (_, Ty::Error) => {}
        (Ty::Smem(_), other) => ck.ctx.type_error(
            dst,
            Code::OperandKind,
            format!("copy_smem_to_gmem writes a global tile, got {other}"),
            "write `c.tile([i, j])`",
        ),
        (other, _) => ck.ctx.type_error(
            src,
            Code::OperandKind,
            format!("copy_smem_to_gmem reads a shared-memory buffer, got {other}"),
            "pass an `Smem<..>` buffer",
        ),
    }
    Ty::Unit
}

/// A reducing TMA store combines the array's dtype with the operation (`legality::TMA_REDUCE`);
/// else an error at the operation.
fn check_reduce_dtype(ck: &mut Checker, op: &Spanned<GmemReduce>, g: &GmemTy) -> bool {
    let takes = tessel_ir::legality::tma_reduce_dtypes(op.value);
    if takes.contains(&g.dtype) {
        return true;
    }
    let names: Vec<&str> = takes.iter().map(|d| d.name()).collect();
    ck.ctx.type_error(
        op.span,
        Code::TmaReduceDtype,
        format!(
            "`reduce = Reduce::{}` combines {} (`cp.reduce.async.bulk.tensor`), but `{}` holds {}",
            op.value.name(),
            names.join(", "),
            g.name,
            g.dtype
        ),
        "reduce into an array of one of those dtypes, or with another operation",
    );
    false
}

/// `copy_smem_to_peer(src, dst, bar, rank)`: a bulk copy (`cp.async.bulk`, not a tensor copy) of
/// this program's bytes into program `rank` of the cluster. It copies bytes, so `dst` must be laid
/// out as `src` is: whole buffers or slabs (`.at(i)`) of one dtype, shape and swizzle.
pub(super) fn check_copy_to_peer(ck: &mut Checker, call: &Expr, src: &Expr, dst: &Expr, bar: &Expr, rank: &Expr) -> Ty {
    needs_cluster(ck, call.span.into(), "copy_smem_to_peer");
    let (st, dt) = (ck.check_expr(src), ck.check_expr(dst));
    check_single_barrier(ck, bar);
    let rt = ck.check_expr(rank);
    if scalar::expect_int(ck, rank, &rt, "the peer's rank") {
        let size = ck.kernel.attr.cluster_size() as i64;
        if let Some(v) = scalar::eval_const(ck, rank) {
            if size > 1 && !(0..size).contains(&v) {
                ck.ctx.type_error(
                    rank,
                    Code::IndexOutOfRange,
                    format!("rank {v} is outside the cluster of {size} programs"),
                    format!("a rank is 0..{size}"),
                );
            }
        }
    }
    let whole = |s: &SmemTy| !s.sliced && !s.transposed;
    match (st, dt) {
        (Ty::Smem(s), Ty::Smem(d)) => {
            let bytes = s.bytes();
            if !whole(&s) {
                ck.ctx.type_error(
                    src,
                    Code::TmaCopy,
                    "copy_smem_to_peer copies a whole buffer or slab, not a slice or a transposed view",
                    "copy `buf` or `buf.at(i)`",
                );
            } else if !whole(&d) || (d.dtype, &d.stored, d.swizzle) != (s.dtype, &s.stored, s.swizzle) {
                ck.ctx.type_error(
                    dst,
                    Code::TmaCopy,
                    format!("copy_smem_to_peer copies bytes, so its destination must be laid out as its source ({}), got {}", Ty::Smem(s.clone()), Ty::Smem(d.clone())),
                    "copy into a buffer (or slab) of the same dtype, shape and swizzle",
                );
            } else if bytes % 16 != 0 {
                ck.ctx.type_error(
                    src,
                    Code::TmaCopy,
                    format!("a bulk copy moves a multiple of 16 bytes, this buffer has {bytes}"),
                    "copy a larger buffer",
                );
            }
        }
        (Ty::Error, _) | (_, Ty::Error) => {}
        (Ty::Smem(_), other) => ck.ctx.type_error(
            dst,
            Code::OperandKind,
            format!("copy_smem_to_peer writes a shared-memory buffer, got {other}"),
            "pass the `Smem<..>` buffer to copy into (the peer's of the same name)",
        ),
        (other, _) => ck.ctx.type_error(
            src,
            Code::OperandKind,
            format!("copy_smem_to_peer reads a shared-memory buffer, got {other}"),
            "pass an `Smem<..>` buffer",
        ),
    }
    Ty::Unit
}

/// The TMA rules: matching dtypes and ranks, a box of at most 256 per dimension, rows of whole
/// 16-byte units (CUDA Driver API, cuTensorMapEncodeTiled).
fn check_tma(ck: &mut Checker, g: &GmemTy, tile: Option<&[i64]>, s: &SmemTy, gspan: Loc, sspan: Loc) -> bool {
    let same_bits =
        g.dtype == s.dtype || matches!((g.dtype, s.dtype), (DType::F32, DType::Tf32) | (DType::Tf32, DType::F32));
    if !same_bits {
        ck.ctx.type_error(
            sspan,
            Code::TmaCopy,
            format!("`{}` holds {} but the buffer holds {}", g.name, g.dtype, s.dtype),
            "TMA copies bytes: give both sides the same dtype",
        );
        return false;
    }
    if s.sliced {
        ck.ctx.type_error(
            sspan,
            Code::TmaCopy,
            "TMA copies whole buffers (or `.at(i)` slabs), not slices",
            "copy into the buffer, then slice for compute",
        );
        return false;
    }
    let stored = &s.stored;
    if stored.len() != g.shape.len() {
        ck.ctx.type_error(
            sspan,
            Code::TmaCopy,
            format!(
                "`{}` has {} dimensions but the buffer {} has {}",
                g.name,
                g.shape.len(),
                shape_str(stored),
                stored.len()
            ),
            "copy between arrays of the same rank (use `.at(i)` for a stage)",
        );
        return false;
    }
    if let Some(t) = tile {
        if t != stored.as_slice() {
            ck.ctx.type_error(
                gspan,
                Code::TmaCopy,
                format!("the tile is {} but the buffer stores {}", shape_str(t), shape_str(stored)),
                "the tile's shape is the buffer's shape in stored order",
            );
            return false;
        }
    }
    check_tile_divides(ck, g, stored, gspan);
    let inner_bytes = stored[stored.len() - 1].saturating_mul(s.dtype.bits() as i64) / 8;
    let mut ok = true;
    if inner_bytes % TMA_ALIGN_BYTES != 0 {
        ck.ctx.type_error(
            sspan,
            Code::TmaCopy,
            format!("a TMA row is {inner_bytes} bytes, not a multiple of 16"),
            "make the last dimension span a multiple of 16 bytes",
        );
        ok = false;
    }
    let outer_too_big = stored[..stored.len() - 1].iter().any(|d| *d > TMA_MAX_BOX);
    let inner_too_big = !s.swizzle.is_some() && stored[stored.len() - 1] > TMA_MAX_BOX;
    if outer_too_big || inner_too_big {
        ck.ctx.type_error(
            sspan,
            Code::TmaCopy,
            format!("a TMA box is at most {TMA_MAX_BOX} elements per dimension, got {}", shape_str(stored)),
            "split the copy into smaller tiles",
        );
        ok = false;
    }
    ok
}

fn check_single_barrier(ck: &mut Checker, bar: &Expr) {
    match ck.check_expr(bar) {
        Ty::Barrier(b) if b.array.is_none() => {}
        Ty::Barrier(_) => {
            ck.ctx.type_error(bar, Code::OperandKind, "this is an array of barriers", "pick one: `bars.at(i)`")
        }
        Ty::Error => {}
        other => ck.ctx.type_error(
            bar,
            Code::OperandKind,
            format!("expected a barrier, got {other}"),
            "allocate `bar: Barrier` in run_scoped",
        ),
    }
}

/// `barrier_arrive(bar)`, or `barrier_arrive(bar, cluster = true)` in a kernel with clusters.
pub(super) fn check_arrive(ck: &mut Checker, bar: &Expr, cluster: Option<Loc>) -> Ty {
    if let Some(span) = cluster {
        needs_cluster(ck, span, "a cluster-wide arrival");
    }
    check_barrier_use(ck, bar)
}

/// `what` (the `multicast` / `cluster` flag at `span`) means nothing without a cluster.
fn needs_cluster(ck: &mut Checker, at: Loc, what: &str) {
    if ck.kernel.attr.cluster_size() < 2 {
        ck.ctx.type_error(
            at,
            Code::NeedsCluster,
            format!("{what} needs a cluster of two or more programs"),
            "add `cluster = (2, 1)` to #[kernel]",
        );
    }
}

/// `barrier_wait(bar)`.
pub(super) fn check_barrier_use(ck: &mut Checker, bar: &Expr) -> Ty {
    check_single_barrier(ck, bar);
    Ty::Unit
}
