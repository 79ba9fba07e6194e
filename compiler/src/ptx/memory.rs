//! Views of memory and register loads and stores: global tiles, shared-memory slabs, slices and
//! transposes, and element addresses (with the swizzle the buffer was declared with).

use super::gen::Gen;
use super::gmem_walk::Walk;
use super::layout::Frag;
use super::smem_walk::{self, SmemWalk};
use super::stmatrix;
use super::value::Val;
use super::writer::Class;
use super::{gmem_pairs, gmem_quads};
use crate::legality;
use crate::typeck::{AccTy, AllocKind, RegsTy, SmemTy, Ty};
use crate::types::{DType, Layout};
use tessel_ir::program::{DimSpec, Expr, ParamKind};

pub fn emit_tile(g: &mut Gen, gmem: &Expr, index: &[Expr]) -> Val {
    let Val::Gmem { param, addr, peer } = g.expr(gmem) else {
        return g.internal("a tile of something other than a global array");
    };
    let index = index.iter().map(|i| g.scalar_reg(i)).collect();
    Val::Tile { param, addr, index, peer }
}

/// The allocation's stored shape: strides come from it, whatever view is taken.
fn alloc_stored(g: &Gen, ty: &SmemTy) -> Vec<i64> {
    match &g.prog.allocs[ty.alloc].kind {
        AllocKind::Smem { stored, .. } => stored.clone(),
        _ => ty.stored.clone(),
    }
}

fn elem_bytes(d: DType) -> i64 {
    i64::from(d.elem_bytes())
}

pub fn emit_at(g: &mut Gen, base: &Expr, index: &Expr) -> Val {
    let b = g.expr(base);
    let i = g.scalar_reg(index);
    match b {
        Val::Smem { addr, ty } => {
            let full = alloc_stored(g, &ty);
            let removed = full.len() - ty.stored.len();
            let slab: i64 = full[removed + 1..].iter().product::<i64>() * elem_bytes(ty.dtype);
            let r = g.w.reg(Class::B32);
            g.w.ins(format!("mad.lo.u32 {r}, {i}, {slab}, {addr}"));
            let mut stored = ty.stored.clone();
            stored.remove(0);
            Val::Smem { addr: r, ty: SmemTy { stored, ..ty } }
        }
        Val::Barrier { addr, alloc, .. } => {
            let r = g.w.reg(Class::B32);
            g.w.ins(format!("mad.lo.u32 {r}, {i}, 8, {addr}"));
            Val::Barrier { addr: r, alloc, index: Some(i) }
        }
        other => other,
    }
}

pub fn emit_slice(g: &mut Gen, e: &Expr, base: &Expr, starts: &[usize]) -> Val {
    let b = g.expr(base);
    let starts: Vec<i64> = starts.iter().map(|&s| s as i64).collect();
    match (b, e.ty.clone()) {
        (Val::Smem { addr, ty }, Ty::Smem(new_ty)) => {
            let n = starts.len();
            let mut stored_starts = starts.clone();
            if ty.transposed && n >= 2 {
                stored_starts.swap(n - 1, n - 2);
            }
            let full = alloc_stored(g, &ty);
            let off = smem_offset_const(&full, &ty, &stored_starts);
            let r = g.w.reg(Class::B32);
            g.w.ins(format!("add.u32 {r}, {addr}, {off}"));
            Val::Smem { addr: r, ty: new_ty }
        }
        (Val::Acc { regs, ty }, Ty::Acc(new_ty)) => {
            let mut keep = select_wgmma(ty.shape[1], &new_ty.shape, &starts);
            if ty.dtype == DType::F16 {
                // f16 accumulators pack two elements per register.
                keep = keep.into_iter().filter(|i| i % 2 == 0).map(|i| i / 2).collect();
            }
            let regs = keep.into_iter().map(|i| regs[i].clone()).collect();
            Val::Acc { regs, ty: new_ty }
        }
        (Val::Regs { regs, ty }, Ty::Regs(new_ty)) => {
            let keep = select_wgmma(ty.shape[1], &new_ty.shape, &starts);
            Val::Regs { regs: keep.into_iter().map(|i| regs[i].clone()).collect(), ty: new_ty }
        }
        (other, _) => other,
    }
}

/// Byte offset of a statically known stored position in a view (slices never cut a swizzled row:
/// a window along a swizzled dimension starts on a column block).
fn smem_offset_const(full: &[i64], ty: &SmemTy, stored_starts: &[i64]) -> i64 {
    let eb = elem_bytes(ty.dtype);
    let n = stored_starts.len();
    let f = full.len();
    let mut off = 0;
    for (d, start) in stored_starts.iter().enumerate().take(n.saturating_sub(2)) {
        let dim = f - n + d;
        off += start * full[dim + 1..].iter().product::<i64>() * eb;
    }
    let (r0, c0) = if n >= 2 { (stored_starts[n - 2], stored_starts[n - 1]) } else { (0, stored_starts[n - 1]) };
    off + stored_offset(full, ty, r0, c0)
}

/// The byte offset, before any swizzle, of row `r` and column `c` (the last two stored
/// dimensions) in an allocation stored `full`: rows of whole columns, or for a swizzled buffer
/// column blocks of the swizzle's width `W`, each `rows x W` (`smem_addr` computes the same in
/// registers).
pub(super) fn stored_offset(full: &[i64], ty: &SmemTy, r: i64, c: i64) -> i64 {
    let eb = elem_bytes(ty.dtype);
    let f = full.len();
    if ty.swizzle.is_some() {
        let (row_bytes, width) = (i64::from(ty.swizzle.bytes()), legality::swizzle_elems(ty.swizzle, ty.dtype));
        let rows = if f >= 2 { full[f - 2] } else { 1 };
        (c / width) * rows * row_bytes + r * row_bytes + (c % width) * eb
    } else {
        (r * full[f - 1] + c) * eb
    }
}

/// The elements of a window (`shape` at `starts`) of a WGMMA-layout value `n` columns wide, by
/// the fragment's element order (`layout::fragment`): typeck made the window whole 64 x 8 blocks,
/// which each thread holds in the same order as the whole value's.
fn select_wgmma(n: i64, shape: &[i64], starts: &[i64]) -> Vec<usize> {
    let (r0, c0) = (starts[0], starts[1]);
    let per_mt = (n / 2) as usize;
    let mut keep = Vec::new();
    for mt in (r0 / 64)..((r0 + shape[0]) / 64) {
        for i in 0..per_mt {
            let col = 8 * (i as i64 >> 2);
            if col >= c0 && col < c0 + shape[1] {
                keep.push(mt as usize * per_mt + i);
            }
        }
    }
    keep
}

pub fn emit_transpose(g: &mut Gen, e: &Expr, base: &Expr) -> Val {
    match (g.expr(base), e.ty.clone()) {
        (Val::Smem { addr, .. }, Ty::Smem(ty)) => Val::Smem { addr, ty },
        (other, _) => other,
    }
}

/// Coordinates (one `.b32` register per dimension) of element `e` of a fragment over `shape`.
pub fn elem_coords(g: &mut Gen, frag: &Frag, e: usize, shape: &[i64]) -> Vec<String> {
    if frag.flat {
        let flat = g.w.reg(Class::B32);
        g.w.ins(format!("add.u32 {flat}, {}, {}", frag.base[0], frag.offsets[e][0]));
        let mut coords = vec![String::new(); shape.len()];
        let mut rest = flat;
        for d in (0..shape.len()).rev() {
            let c = g.w.reg(Class::B32);
            g.urem_const(&c, &rest, shape[d]);
            let q = g.w.reg(Class::B32);
            g.udiv_const(&q, &rest, shape[d]);
            coords[d] = c;
            rest = q;
        }
        return coords;
    }
    frag.base
        .iter()
        .zip(&frag.offsets[e])
        .map(|(b, o)| {
            let r = g.w.reg(Class::B32);
            g.w.ins(format!("add.u32 {r}, {b}, {o}"));
            r
        })
        .collect()
}

/// The predicate "this strided element exists", for arrays that do not fill every thread.
pub(super) fn exists(g: &mut Gen, frag: &Frag, e: usize) -> Option<String> {
    if !frag.flat || frag.total % 128 == 0 {
        return None;
    }
    let p = g.w.reg(Class::Pred);
    g.w.ins(format!("setp.lt.u32 {p}, {}, {}", frag.base[0], frag.total - frag.offsets[e][0]));
    Some(p)
}

/// Shared address of the element at view coordinates `coords` (`.b32`).
pub fn smem_addr(g: &mut Gen, base: &str, ty: &SmemTy, coords: &[String]) -> String {
    let full = alloc_stored(g, ty);
    let eb = elem_bytes(ty.dtype);
    let n = coords.len();
    let (mut r, mut c) =
        if n >= 2 { (Some(coords[n - 2].clone()), coords[n - 1].clone()) } else { (None, coords[0].clone()) };
    if ty.transposed && n >= 2 {
        let row = r.take().unwrap_or_default();
        r = Some(c);
        c = row;
    }
    let off = g.w.reg(Class::B32);
    let cols = full[full.len() - 1];
    if ty.swizzle.is_some() {
        let w = legality::swizzle_elems(ty.swizzle, ty.dtype);
        let rows = if full.len() >= 2 { full[full.len() - 2] } else { 1 };
        let (q, m) = (g.w.reg(Class::B32), g.w.reg(Class::B32));
        g.udiv_const(&q, &c, w);
        g.urem_const(&m, &c, w);
        g.w.ins(format!("mul.lo.u32 {off}, {q}, {}", rows * i64::from(ty.swizzle.bytes())));
        if let Some(r) = &r {
            g.w.ins(format!("mad.lo.u32 {off}, {r}, {}, {off}", ty.swizzle.bytes()));
        }
        g.w.ins(format!("mad.lo.u32 {off}, {m}, {eb}, {off}"));
    } else {
        match &r {
            Some(r) => g.w.ins(format!("mul.lo.u32 {off}, {r}, {}", cols * eb)),
            None => g.w.ins(format!("mov.u32 {off}, 0")),
        }
        g.w.ins(format!("mad.lo.u32 {off}, {c}, {eb}, {off}"));
    }
    let addr = g.w.reg(Class::B32);
    g.w.ins(format!("add.u32 {addr}, {base}, {off}"));
    if ty.swizzle.is_some() {
        swizzle(g, &addr, ty.swizzle.bytes())
    } else {
        addr
    }
}

/// Applies the hardware swizzle to an absolute shared address: bits [4, 4+b) ^= bits [7, 7+b) with
/// b = log2(swizzle / 16) (checked on the H200).
pub fn swizzle(g: &mut Gen, addr: &str, swizzle: u32) -> String {
    let mask = swizzle / 16 - 1;
    let t = g.w.reg(Class::B32);
    g.w.ins(format!("shr.u32 {t}, {addr}, 3"));
    g.w.ins(format!("and.b32 {t}, {t}, {}", mask << 4));
    let r = g.w.reg(Class::B32);
    g.w.ins(format!("xor.b32 {r}, {addr}, {t}"));
    r
}

/// The dimensions of a global parameter as registers or immediates.
pub(super) fn gmem_dims(g: &mut Gen, param: usize) -> Vec<String> {
    let Some(ParamKind::Gmem { shape, .. }) = g.prog.params.get(param).map(|p| &p.kind) else {
        g.internal(format!("parameter {param} is not a global array"));
        return Vec::new();
    };
    let dim = |g: &mut Gen, d: &DimSpec| match d {
        DimSpec::Static(v) => v.to_string(),
        DimSpec::Runtime(i) => match g.dims.get(*i) {
            Some(r) => r.clone(),
            None => {
                g.internal(format!("runtime dimension {i} of {}", g.dims.len()));
                "0".into()
            }
        },
    };
    shape.iter().map(|d| dim(g, d)).collect()
}

/// The `ld`/`st` type of an element in memory (shared, global or scratch); the register is that of
/// `Class::of(dtype)`, bools going through a `.b32` 0/1.
pub(super) fn mem_type(d: DType) -> &'static str {
    match d {
        DType::F32 | DType::Tf32 => "f32",
        DType::Bf16 | DType::F16 => "b16",
        DType::F8E4M3 | DType::F8E5M2 | DType::U8 | DType::Bool => "u8",
        DType::I8 | DType::I4 => "s8",
        DType::I16 => "s16",
        DType::U16 => "u16",
        DType::I32 | DType::U32 => "b32",
        DType::I64 | DType::U64 => "b64",
    }
}

/// Where a register array is read from or written to.
pub(super) enum Place {
    Smem { addr: String, ty: SmemTy },
    Gmem { addr: String, param: usize, index: Vec<String>, tile: Vec<i64> },
}

/// A global tile read or written through a fragment of constant offsets is walked (`Walk`): its
/// shared addressing is computed once, before the elements. (A `Strided` fragment's elements have
/// coordinates computed one by one: each gets a walk of its own, in `elem_address`.)
pub(super) fn walk(g: &mut Gen, place: &Place, frag: &Frag, dtype: DType) -> Option<Walk> {
    match place {
        Place::Gmem { addr, param, index, tile } if !frag.flat => {
            Some(Walk::new(g, addr, *param, index, tile, &frag.base, dtype))
        }
        _ => None,
    }
}

/// Element `el`'s address, its state space, and for global memory the in-bounds predicate.
pub(super) fn elem_address(
    g: &mut Gen,
    place: &Place,
    walk: Option<&Walk>,
    frag: &Frag,
    el: usize,
    shape: &[i64],
    dtype: DType,
) -> (String, &'static str, Option<String>) {
    if let Some(w) = walk {
        let (addr, inside) = w.element(g, &frag.offsets[el]);
        return (addr, "global", Some(inside));
    }
    let coords = elem_coords(g, frag, el, shape);
    match place {
        Place::Smem { addr, ty } => (smem_addr(g, addr, ty, &coords), "shared", None),
        Place::Gmem { addr, param, index, tile } => {
            let (a, inside) =
                Walk::new(g, addr, *param, index, tile, &coords, dtype).element(g, &vec![0; coords.len()]);
            (a, "global", Some(inside))
        }
    }
}

/// Combines the "element exists" and "inside the array" predicates into one guard prefix.
pub(super) fn guard(g: &mut Gen, exists: Option<String>, inside: Option<String>) -> Option<String> {
    match (exists, inside) {
        (Some(a), Some(b)) => {
            let p = g.w.reg(Class::Pred);
            g.w.ins(format!("and.pred {p}, {a}, {b}"));
            Some(p)
        }
        (a, b) => a.or(b),
    }
}

/// `src.load(layout)`: from an accumulator, shared memory or a global tile.
pub fn emit_load(g: &mut Gen, e: &Expr, src: &Expr) -> Val {
    let Ty::Regs(rt) = e.ty.clone() else { return g.internal(format!("a load typed {}", e.ty)) };
    let place = match g.expr(src) {
        Val::Acc { regs, ty } => return Val::Regs { regs: acc_to_regs(g, &ty, &regs), ty: rt },
        Val::Smem { addr, ty } => Place::Smem { addr, ty },
        Val::Tile { addr, param, index, .. } => Place::Gmem { addr, param, index, tile: tile_shape(src, &rt.shape) },
        other => return g.internal(format!("a load from {other:?}")),
    };
    let frag = g.fragment(rt.layout, &rt.shape, rt.dtype);
    if let Place::Smem { addr, ty } = &place {
        if smem_walk::applies(rt.layout, rt.dtype, ty) {
            let alloc = alloc_stored(g, ty);
            let regs = SmemWalk::new(g, addr, ty, &alloc, &frag, rt.layout).load(g, rt.dtype);
            return Val::Regs { regs, ty: rt };
        }
    }
    let walk = walk(g, &place, &frag, rt.dtype);
    let regs = match (walk.as_ref(), paired(&place, &frag, rt.dtype)) {
        (Some(w), Some(param)) => {
            let regs: Vec<String> = (0..frag.len()).map(|_| g.w.reg_for(rt.dtype)).collect();
            gmem_pairs::by_parity(
                g,
                param,
                |g| gmem_pairs::load(g, w, &frag, &regs, rt.dtype),
                |g| drop(load_elements(g, &place, Some(w), &frag, &rt, Some(&regs))),
            );
            regs
        }
        _ => load_elements(g, &place, walk.as_ref(), &frag, &rt, None),
    };
    Val::Regs { regs, ty: rt }
}

/// The shape of a global tile that registers of shape `regs` move to or from: as written (with
/// leading extents of 1 that the registers do not have), or the registers' own.
pub(super) fn tile_shape(tile: &Expr, regs: &[i64]) -> Vec<i64> {
    match &tile.ty {
        Ty::Tile(_, Some(shape)) => shape.clone(),
        _ => regs.to_vec(),
    }
}

/// The global parameter a register array moves to or from in pairs (`gmem_pairs`), if it does.
pub(super) fn paired(place: &Place, frag: &Frag, dtype: DType) -> Option<usize> {
    match place {
        Place::Gmem { tile, param, .. } => {
            gmem_pairs::pairs(frag, dtype, tile.last().copied().unwrap_or(0)).then_some(*param)
        }
        Place::Smem { .. } => None,
    }
}

/// Loads the fragment's elements one by one, into `into` or into new registers; elements that do
/// not exist or lie outside the array read as 0.
fn load_elements(
    g: &mut Gen,
    place: &Place,
    walk: Option<&Walk>,
    frag: &Frag,
    rt: &RegsTy,
    into: Option<&[String]>,
) -> Vec<String> {
    let mut regs = Vec::new();
    for el in 0..frag.len() {
        let (addr, space, inside) = elem_address(g, place, walk, frag, el, &rt.shape, rt.dtype);
        let r = into.map_or_else(|| g.w.reg_for(rt.dtype), |regs| regs[el].clone());
        let ex = exists(g, frag, el);
        let guarded = guard(g, ex, inside);
        let target = if rt.dtype == DType::Bool { g.w.reg(Class::B32) } else { r.clone() };
        if guarded.is_some() {
            let zero = g.const_reg(if rt.dtype == DType::Bool { DType::U32 } else { rt.dtype }, 0.0);
            g.mov(if rt.dtype == DType::Bool { DType::U32 } else { rt.dtype }, &target, &zero);
        }
        let guard = guarded.map(|p| format!("@{p} ")).unwrap_or_default();
        g.w.ins(format!("{guard}ld.{space}.{} {target}, [{addr}]", mem_type(rt.dtype)));
        if rt.dtype == DType::Bool {
            g.w.ins(format!("setp.ne.u32 {r}, {target}, 0"));
        }
        regs.push(r);
    }
    regs
}

/// `dst.store(value)`.
pub fn emit_store(g: &mut Gen, dst: &Expr, value: &Expr) -> Val {
    let Ty::Regs(vt) = value.ty.clone() else { return g.internal(format!("a store of a value typed {}", value.ty)) };
    let d = g.expr(dst);
    let Val::Regs { regs, .. } = g.expr(value) else {
        return g.internal("a store of a value that is not a register array");
    };
    let place = match d {
        Val::Acc { regs: acc, ty } => {
            let src = regs_for_layout(g, &vt, &regs, Layout::Wgmma, &ty.shape);
            let packed = regs_to_acc(g, &ty, &src);
            for (a, s) in acc.iter().zip(&packed) {
                let suffix = if ty.dtype == DType::F32 { "f32" } else { "b32" };
                g.w.ins(format!("mov.{suffix} {a}, {s}"));
            }
            return Val::Unit;
        }
        Val::Smem { addr, ty } => Place::Smem { addr, ty },
        Val::Tile { addr, param, index, .. } => Place::Gmem { addr, param, index, tile: tile_shape(dst, &vt.shape) },
        other => return g.internal(format!("a store into {other:?}")),
    };
    if vt.layout == Layout::Splat {
        // A splat has one register; store it at every position through a strided walk.
        let strided = RegsTy { layout: Layout::Strided, ..vt.clone() };
        let regs = regs_for_layout(g, &vt, &regs, strided.layout, &vt.shape);
        return store_frag(g, &place, &strided, &regs);
    }
    if let Place::Smem { addr, ty } = &place {
        if stmatrix::applies(ty, &vt, alloc_stored(g, ty).last().copied().unwrap_or(0)) {
            stmatrix::store(g, addr, ty, &vt, &regs);
            return Val::Unit;
        }
    }
    store_frag(g, &place, &vt, &regs)
}

fn store_frag(g: &mut Gen, place: &Place, vt: &RegsTy, regs: &[String]) -> Val {
    let frag = g.fragment(vt.layout, &vt.shape, vt.dtype);
    match place {
        Place::Gmem { addr, param, index, tile }
            if gmem_quads::applies(vt.layout, vt.dtype, &vt.shape, tile.last().copied().unwrap_or(0)) =>
        {
            gmem_pairs::by_multiple(
                g,
                *param,
                8,
                ["rows_not_16_byte_aligned", "runs_done"],
                |g| gmem_quads::store(g, (addr, *param, index, tile), &frag, regs, vt.dtype),
                |g| store_walked(g, place, &frag, vt, regs),
            );
        }
        Place::Smem { addr, ty } if smem_walk::applies(vt.layout, vt.dtype, ty) => {
            let alloc = alloc_stored(g, ty);
            SmemWalk::new(g, addr, ty, &alloc, &frag, vt.layout).store(g, regs, vt.dtype);
        }
        _ => store_walked(g, place, &frag, vt, regs),
    }
    Val::Unit
}

/// Stores a fragment through a walk: in pairs where they apply, else element by element.
fn store_walked(g: &mut Gen, place: &Place, frag: &Frag, vt: &RegsTy, regs: &[String]) {
    let walk = walk(g, place, frag, vt.dtype);
    match (walk.as_ref(), paired(place, frag, vt.dtype)) {
        (Some(w), Some(param)) => gmem_pairs::by_parity(
            g,
            param,
            |g| gmem_pairs::store(g, w, frag, regs, vt.dtype),
            |g| store_elements(g, place, Some(w), frag, vt, regs),
        ),
        _ => store_elements(g, place, walk.as_ref(), frag, vt, regs),
    }
}

/// Stores the fragment's elements one by one (those that exist and lie inside the array).
fn store_elements(g: &mut Gen, place: &Place, walk: Option<&Walk>, frag: &Frag, vt: &RegsTy, regs: &[String]) {
    for (el, r) in regs.iter().enumerate().take(frag.len()) {
        let (addr, space, inside) = elem_address(g, place, walk, frag, el, &vt.shape, vt.dtype);
        let ex = exists(g, frag, el);
        let guard = guard(g, ex, inside).map(|p| format!("@{p} ")).unwrap_or_default();
        let src = if vt.dtype == DType::Bool {
            let b = g.w.reg(Class::B32);
            g.w.ins(format!("selp.u32 {b}, 1, 0, {r}"));
            b
        } else {
            r.clone()
        };
        g.w.ins(format!("{guard}st.{space}.{} [{addr}], {src}", mem_type(vt.dtype)));
    }
}

/// A splat's single register repeated for every element of `layout`; other arrays unchanged.
pub fn regs_for_layout(_g: &mut Gen, vt: &RegsTy, regs: &[String], layout: Layout, shape: &[i64]) -> Vec<String> {
    if vt.layout == Layout::Splat && layout != vt.layout {
        let n = super::layout::count(layout, shape);
        return (0..n).map(|_| regs[0].clone()).collect();
    }
    regs.to_vec()
}

/// Accumulator registers as WGMMA-layout elements (f16 accumulators unpack their pairs).
pub fn acc_to_regs(g: &mut Gen, ty: &AccTy, acc: &[String]) -> Vec<String> {
    let mut out = Vec::new();
    for a in acc {
        match ty.dtype {
            DType::F16 => {
                let (lo, hi) = (g.w.reg(Class::B16), g.w.reg(Class::B16));
                g.w.ins(format!("mov.b32 {{{lo}, {hi}}}, {a}"));
                out.push(lo);
                out.push(hi);
            }
            d => {
                let r = g.w.reg_for(d);
                g.mov(d, &r, a);
                out.push(r);
            }
        }
    }
    out
}

/// WGMMA-layout elements as accumulator registers (f16 pairs packed, low half first).
pub fn regs_to_acc(g: &mut Gen, ty: &AccTy, regs: &[String]) -> Vec<String> {
    match ty.dtype {
        DType::F16 => regs
            .chunks(2)
            .map(|pair| {
                let r = g.w.reg(Class::B32);
                g.w.ins(format!("mov.b32 {r}, {{{}, {}}}", pair[0], pair.get(1).unwrap_or(&pair[0])));
                r
            })
            .collect(),
        d => regs
            .iter()
            .map(|s| {
                let r = g.w.reg(if d == DType::F32 { Class::F32 } else { Class::B32 });
                g.mov(d, &r, s);
                r
            })
            .collect(),
    }
}
