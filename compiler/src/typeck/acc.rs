//! Loads and stores: accumulators (catalog B-rows, SEED 003 and 004, A6, A7), shared memory and global
//! tiles to and from register arrays.

use super::{regs, Checker, RegsTy, Ty};
use crate::codes::Code;
use crate::diag::{Diag, Loc, StoreSource};
use crate::syntax::ast::{Expr, ExprKind, Layout, Spanned};

/// A6 and C6: an accumulator is M x N with M a multiple of 64 and N of 8.
pub(super) fn check_acc_shape(ck: &mut Checker, shape: &[i64], span: Loc) -> bool {
    match shape {
        [m, n] if m % 64 == 0 && n % 8 == 0 => true,
        [m, n] => {
            ck.ctx.error(span, Diag::AccShape { m: *m, n: *n });
            false
        }
        _ => {
            ck.ctx.error(span, Diag::ShapeNot2d { shape: shape.to_vec() });
            false
        }
    }
}

/// `Acc::from_regs(x)`: SEED 004 (layout), A7 (unsigned). Returns the preinitialised accumulator type.
pub(super) fn check_from_regs(ck: &mut Checker, regs: &Expr) -> Ty {
    let ty = ck.check_expr(regs);
    let r = match ty {
        Ty::Regs(r) => r,
        Ty::Error => return Ty::Error,
        other => {
            ck.ctx.type_error(
                regs,
                Code::OperandKind,
                format!("Acc::from_regs takes a register array, got {other}"),
                "load or compute a `Regs<..>` first",
            );
            return Ty::Error;
        }
    };
    let mut ok = true;
    if r.dtype.is_unsigned() {
        ck.ctx.error(regs, Diag::AccFromUnsigned);
        ok = false;
    }
    if r.layout != Layout::Wgmma {
        ck.ctx.error(regs, Diag::AccFromLayout { layout: r.layout });
        ok = false;
    }
    if ok && !check_acc_shape(ck, &r.shape, regs.into()) {
        ok = false;
    }
    if ok {
        Ty::Acc(super::AccTy { dtype: r.dtype, shape: r.shape, sliced: false })
    } else {
        Ty::Error
    }
}

/// `acc.load()`, `smem.load(layout?)`, `gmem.tile([..], [shape]).load(layout?)`.
pub(super) fn check_load(ck: &mut Checker, _e: &Expr, src: &Expr, layout: Option<&Spanned<Layout>>) -> Ty {
    let ty = ck.check_expr(src);
    let (dtype, shape, default) = match &ty {
        Ty::Error => return Ty::Error,
        Ty::Acc(a) => (a.dtype, a.shape.clone(), Layout::Wgmma),
        Ty::Smem(s) => (s.dtype, s.shape(), Layout::Strided),
        Ty::Tile(g, Some(shape)) => (g.dtype, super::tile_registers(shape).to_vec(), Layout::Strided),
        Ty::Tile(_, None) => {
            ck.ctx.type_error(
                src,
                Code::OperationForm,
                "loading a global tile into registers needs its shape",
                "write `x.tile([i, j], [rows, cols]).load(Layout::Strided)`",
            );
            return Ty::Error;
        }
        other => {
            ck.ctx.type_error(
                src,
                Code::OperandKind,
                format!("cannot load from {other}"),
                "load from an accumulator, a shared-memory buffer or a global tile",
            );
            return Ty::Error;
        }
    };
    let layout = match (layout, &ty) {
        (Some(l), Ty::Acc(_)) if l.value != Layout::Wgmma => {
            ck.ctx.type_error(
                l.span,
                Code::AccLoadLayout,
                format!("an accumulator loads in Layout::Wgmma, not {}", l.value),
                "write `acc.load()` and convert the result with `.to_layout(..)`",
            );
            return Ty::Error;
        }
        (Some(l), _) => l.clone(),
        (None, _) => Spanned::new(default, src.span),
    };
    if layout.value == Layout::Splat {
        ck.ctx.error(layout.span, Diag::CannotConvert { from: Layout::Strided, to: Layout::Splat });
        return Ty::Error;
    }
    if !regs::check_layout_shape(ck, layout.value, &shape, layout.span) {
        return Ty::Error;
    }
    Ty::Regs(RegsTy { dtype, shape, layout: layout.value })
}

/// `dst.store(value)` into an accumulator, shared memory or a global tile.
pub(super) fn check_store(ck: &mut Checker, dst: &Expr, value: &Expr) -> Ty {
    let dst_ty = ck.check_expr(dst);
    let value_ty = ck.check_expr(value);
    let v = match (&dst_ty, value_ty) {
        (Ty::Error, _) | (_, Ty::Error) => return Ty::Unit,
        (_, Ty::Regs(v)) => v,
        (_, other) => {
            let source = store_source(&dst_ty, value, &other);
            ck.ctx.error(value, Diag::StoreNotRegs { what: other.to_string(), source });
            return Ty::Unit;
        }
    };
    match dst_ty {
        Ty::Acc(a) => check_acc_store(ck, &a, dst, value, &v),
        Ty::Smem(s) => check_plain_store(ck, s.dtype, &s.shape(), value, &v),
        Ty::Tile(g, shape) => {
            if writable(ck, &g, dst) {
                check_tile_value(ck, &g, shape.as_deref(), value, &v);
            }
        }
        other => ck.ctx.type_error(
            dst,
            Code::OperandKind,
            format!("cannot store into {other}"),
            "store into an accumulator, a shared-memory buffer or a `GmemMut` tile",
        ),
    }
    Ty::Unit
}

/// A store into a tile of `g` needs a `GmemMut` array (else an error at `dst`).
fn writable(ck: &mut Checker, g: &super::GmemTy, dst: &Expr) -> bool {
    if !g.mutable {
        ck.ctx.type_error(
            dst,
            Code::ReadOnly,
            format!("`{}` is read-only (`Gmem`)", g.name),
            format!("declare the parameter `{}: GmemMut<..>`", g.name),
        );
    }
    g.mutable
}

/// The value a register store or atomic add moves into a tile of `g` (of `shape` when written):
/// the tile's shape, or that shape without its leading extents of 1, and the array's dtype.
fn check_tile_value(ck: &mut Checker, g: &super::GmemTy, shape: Option<&[i64]>, value: &Expr, v: &RegsTy) {
    if let Some(shape) = shape {
        // The tile's shape, or (as a load gives) the same without its leading extents of 1.
        let want = if v.shape == shape { shape } else { super::tile_registers(shape) };
        check_plain_store(ck, g.dtype, want, value, v);
    } else if v.shape.len() != g.shape.len() {
        ck.ctx.type_error(
            value,
            Code::StoreMismatch,
            format!(
                "a tile of a {}-D array takes a {}-D value, got {}",
                g.shape.len(),
                g.shape.len(),
                crate::diag::shape_str(&v.shape)
            ),
            "store a register array of the tile's rank",
        );
    } else if v.dtype != g.dtype {
        dtype_mismatch(ck, g.dtype, value, v);
    }
}

/// `c.tile([i, j]).atomic_add(v)`: as a register store into a tile (`check_tile_value`), of a
/// dtype `red.global.add` adds (`legality::ATOMIC_ADD`). The destination and the value are checked
/// independently, so that a kernel wrong in both hears of both.
pub(super) fn check_atomic_add(ck: &mut Checker, dst: &Expr, value: &Expr) -> Ty {
    let target = match ck.check_expr(dst) {
        Ty::Tile(g, shape) => (writable(ck, &g, dst) && addable(ck, &g, dst)).then_some((g, shape)),
        Ty::Error => None,
        other => {
            ck.ctx.type_error(
                dst,
                Code::AtomicAddTarget,
                format!("`.atomic_add` adds into a tile of a global array, got {other}"),
                "add into `c.tile([i, j])` of a `GmemMut` parameter; store shared memory and accumulators with `.store(v)`",
            );
            None
        }
    };
    match ck.check_expr(value) {
        Ty::Regs(v) => {
            if let Some((g, shape)) = target {
                check_tile_value(ck, &g, shape.as_deref(), value, &v);
            }
        }
        Ty::Error => {}
        other => ck.ctx.type_error(
            value,
            Code::AtomicAddValue,
            format!("`.atomic_add` adds a register array, got {other}"),
            "load the values into registers first: `x_s.load(Layout::Strided)`, `acc.load()`",
        ),
    }
    Ty::Unit
}

/// `red.global.add` adds the array's dtype (else an error at `dst`).
fn addable(ck: &mut Checker, g: &super::GmemTy, dst: &Expr) -> bool {
    if tessel_ir::legality::atomic_add_row(g.dtype).is_some() {
        return true;
    }
    let takes: Vec<&str> = tessel_ir::legality::ATOMIC_ADD.iter().map(|r| r.dtype.name()).collect();
    ck.ctx.type_error(
        dst,
        Code::AtomicAddDtype,
        format!("`.atomic_add` adds {} (`red.global.add`), but `{}` holds {}", takes.join(", "), g.name, g.dtype),
        "accumulate into an array of one of those dtypes (an `f32` one for sums of narrower floats)",
    );
    false
}

/// What a store was given instead of registers, for the help line (`StoreSource`).
fn store_source(dst: &Ty, value: &Expr, got: &Ty) -> StoreSource {
    match (got, dst) {
        (Ty::Acc(_), _) => {
            let name = match &value.kind {
                ExprKind::Var(v) => Some(v.to_string()),
                _ => None,
            };
            StoreSource::Acc { name }
        }
        (Ty::Smem(_), Ty::Tile(..)) => StoreSource::SmemToGmem,
        (Ty::Smem(_) | Ty::Tile(..), _) => StoreSource::Memory,
        _ => StoreSource::Other,
    }
}

/// B2 (shape) then SEED 003 (dtype), both at the value and both when both are wrong (Mosaic GPU
/// checks the shape first); B3 (sliced accumulator); SEED 004 (layout).
fn check_acc_store(ck: &mut Checker, acc: &super::AccTy, dst: &Expr, value: &Expr, v: &RegsTy) {
    if acc.sliced {
        ck.ctx.error(dst, Diag::AccStoreSliced);
        return;
    }
    if v.shape != acc.shape {
        ck.ctx.error(value, Diag::AccStoreShape { acc: acc.shape.clone(), value: v.shape.clone() });
    }
    if v.dtype != acc.dtype {
        ck.ctx.error(value, Diag::AccStoreDtype { acc: acc.dtype, value: v.dtype });
    }
    if v.shape == acc.shape && v.dtype == acc.dtype && v.layout != Layout::Wgmma && v.layout != Layout::Splat {
        ck.ctx.error(value, Diag::AccFromLayout { layout: v.layout });
    }
}

fn check_plain_store(ck: &mut Checker, dtype: crate::types::DType, shape: &[i64], value: &Expr, v: &RegsTy) {
    if v.dtype != dtype {
        dtype_mismatch(ck, dtype, value, v);
    } else if v.shape != shape {
        ck.ctx.type_error(
            value,
            Code::StoreMismatch,
            format!(
                "the destination is {} but the value is {}",
                crate::diag::shape_str(shape),
                crate::diag::shape_str(&v.shape)
            ),
            "store a value of the destination's shape",
        );
    }
}

fn dtype_mismatch(ck: &mut Checker, dtype: crate::types::DType, value: &Expr, v: &RegsTy) {
    ck.ctx.type_error(
        value,
        Code::StoreMismatch,
        format!("the destination holds {dtype} but the value is {}", v.dtype),
        format!("cast the value first: `.cast::<{dtype}>()`"),
    );
}
