//! `wgmma(acc, a, b)`: catalog rows B4 and E1-E17. The checks run in the order Mosaic GPU makes
//! them, and stop at the first failure of an operand so one mistake gives one error.

use super::{AccTy, Checker, RegsTy, SmemTy, Ty};
use crate::codes::Code;
use crate::diag::{Diag, Loc};
use crate::legality::{self, WgmmaRow};
use crate::syntax::ast::{Expr, Layout};
use crate::types::DType;

/// An A or B operand after its own checks.
enum Operand {
    Smem(SmemTy),
    Regs(RegsTy),
}

impl Operand {
    fn dtype(&self) -> DType {
        match self {
            Operand::Smem(s) => s.dtype,
            Operand::Regs(r) => r.dtype,
        }
    }

    fn shape(&self) -> Vec<i64> {
        match self {
            Operand::Smem(s) => s.shape(),
            Operand::Regs(r) => r.shape.clone(),
        }
    }
}

pub(super) fn check_wgmma(ck: &mut Checker, acc: &Expr, a: &Expr, b: &Expr, accumulate: Option<&Expr>) -> Ty {
    if let Some(c) = accumulate {
        match ck.check_expr(c) {
            Ty::Scalar(DType::Bool) | Ty::Error => {}
            other => ck.ctx.type_error(
                c,
                Code::ScalarType,
                format!("`accumulate` must be a bool, got {other}"),
                "write a condition, e.g. `accumulate = k > 0`",
            ),
        }
    }
    let acc_ty = check_acc_operand(ck, acc);
    let a_op = check_a(ck, a);
    let b_op = check_b(ck, b);
    let (Some(acc_ty), Some(a_op), Some(b_op)) = (acc_ty, a_op, b_op) else { return Ty::Unit };
    let Some(row) = check_dtypes(ck, acc, &acc_ty, a, &a_op, b, &b_op) else { return Ty::Unit };
    if check_shapes(ck, acc, &acc_ty, a, &a_op, b, &b_op, row) {
        check_smem_layouts(ck, a, &a_op, b, &b_op, row);
    }
    Ty::Unit
}

/// B4, E1: the first argument is an accumulator WGMMA can write.
fn check_acc_operand(ck: &mut Checker, acc: &Expr) -> Option<AccTy> {
    match ck.check_expr(acc) {
        // A window (`acc.slice(..)`) is whole 64-row, 8-column register blocks (checked where it
        // is taken), so WGMMA can write it: two tiles may take turns in one accumulator.
        Ty::Acc(a) => {
            if !legality::WGMMA_OUT.contains(&a.dtype) {
                ck.ctx.error(acc, Diag::WgmmaOutDtype { dtype: a.dtype });
                return None;
            }
            Some(a)
        }
        Ty::Error => None,
        other => {
            ck.ctx.error(acc, Diag::NotAnAcc { what: other.to_string() });
            None
        }
    }
}

/// A from shared memory or registers: E11, E12.
fn check_a(ck: &mut Checker, a: &Expr) -> Option<Operand> {
    match ck.check_expr(a) {
        Ty::Smem(s) => Some(Operand::Smem(s)),
        Ty::Regs(r) => {
            if r.dtype.is_unsigned() {
                ck.ctx.error(a, Diag::WgmmaUnsigned { side: "lhs", dtype: r.dtype });
                return None;
            }
            if !legality::wgmma_row(r.dtype).is_some_and(|row| row.a_in_registers) {
                ck.ctx.error(a, Diag::WgmmaRegADtype { dtype: r.dtype });
                return None;
            }
            if r.layout != Layout::Wgmma {
                ck.ctx.error(a, Diag::WgmmaRegALayout { layout: r.layout });
                return None;
            }
            Some(Operand::Regs(r))
        }
        Ty::Error => None,
        other => {
            ck.ctx.type_error(
                a,
                Code::OperandKind,
                format!("A must be a shared-memory ref or a register array, got {other}"),
                "pass an `Smem<..>` buffer or a `Regs<..>` in Layout::Wgmma",
            );
            None
        }
    }
}

/// B from shared memory only: E10.
fn check_b(ck: &mut Checker, b: &Expr) -> Option<Operand> {
    match ck.check_expr(b) {
        Ty::Smem(s) => Some(Operand::Smem(s)),
        Ty::Error => None,
        other => {
            ck.ctx.error(b, Diag::WgmmaBInRegisters { what: other.to_string() });
            None
        }
    }
}

/// E12 (unsigned in shared memory), E5 (mixed dtypes), the operand row, E2-E4 (accumulator dtype).
fn check_dtypes(
    ck: &mut Checker,
    acc: &Expr,
    acc_ty: &AccTy,
    a: &Expr,
    a_op: &Operand,
    b: &Expr,
    b_op: &Operand,
) -> Option<&'static WgmmaRow> {
    for (e, op, side) in [(a, a_op, "lhs"), (b, b_op, "rhs")] {
        if op.dtype().is_unsigned() {
            ck.ctx.error(e, Diag::WgmmaUnsigned { side, dtype: op.dtype() });
            return None;
        }
    }
    let (ad, bd) = (a_op.dtype(), b_op.dtype());
    if !legality::wgmma_operands_compatible(ad, bd) {
        ck.ctx.error(b, Diag::WgmmaMixedDtypes { a: ad, b: bd });
        return None;
    }
    let Some(row) = legality::wgmma_row(ad) else {
        ck.ctx.type_error(
            a,
            Code::WgmmaOperandDtype,
            format!("WGMMA does not take {ad} operands"),
            "WGMMA multiplies f16, bf16, tf32 (f32 data stored as `tf32`), f8e4m3, f8e5m2 and i8",
        );
        return None;
    };
    if !row.accumulators.contains(&acc_ty.dtype) {
        ck.ctx.error(acc, Diag::WgmmaAccForElement { element: ad, allowed: row.accumulators, acc: acc_ty.dtype });
        return None;
    }
    Some(row)
}

/// E17 (ranks), E8 (M, N, K), E6 (K of A vs B), E7 (accumulator shape).
#[allow(clippy::too_many_arguments)]
fn check_shapes(
    ck: &mut Checker,
    acc: &Expr,
    acc_ty: &AccTy,
    a: &Expr,
    a_op: &Operand,
    b: &Expr,
    b_op: &Operand,
    row: &WgmmaRow,
) -> bool {
    let (sa, sb) = (a_op.shape(), b_op.shape());
    let ([m, k_a], [k_b, n]) = (sa.as_slice(), sb.as_slice()) else {
        ck.ctx.error(
            Loc::new(a.span, b.end),
            Diag::MatmulShapes { a: sa.clone(), b: sb.clone(), acc: acc_ty.shape.clone() },
        );
        return false;
    };
    let (m, k_a, k_b, n) = (*m, *k_a, *k_b, *n);
    if m % legality::WGMMA_M != 0 {
        ck.ctx.error(a, Diag::WgmmaM { m });
        return false;
    }
    if !legality::NRule::Step8.allows(n) {
        ck.ctx.error(b, Diag::WgmmaN { n });
        return false;
    }
    if !row.n_rule.allows(n) {
        ck.ctx.error(b, Diag::WgmmaIntN { n });
        return false;
    }
    if k_a != k_b {
        ck.ctx.error(b, Diag::WgmmaK { k_a, k_b });
        return false;
    }
    if k_a % row.k_step != 0 {
        ck.ctx.error(a, Diag::WgmmaKStep { k_step: row.k_step, k: k_a });
        return false;
    }
    if acc_ty.shape != [m, n] {
        ck.ctx.error(acc, Diag::WgmmaAccShape { m, n, shape: acc_ty.shape.clone() });
        return false;
    }
    true
}

/// E14 (no swizzle), E13 (swizzles differ), E9 (transposes need 16-bit operands).
fn check_smem_layouts(ck: &mut Checker, a: &Expr, a_op: &Operand, b: &Expr, b_op: &Operand, row: &WgmmaRow) {
    for (e, op) in [(a, a_op), (b, b_op)] {
        if let Operand::Smem(s) = op {
            if !s.swizzle.is_some() {
                ck.ctx.error(e, Diag::NoSwizzle);
                return;
            }
        }
    }
    if let (Operand::Smem(sa), Operand::Smem(sb)) = (a_op, b_op) {
        if sa.swizzle != sb.swizzle {
            ck.ctx.error(b, Diag::WgmmaSwizzleMismatch { a: sa.swizzle.bytes(), b: sb.swizzle.bytes() });
            return;
        }
    }
    // A is K-major when stored [M, K]; B is K-major when stored [N, K] (a transposed view of [K, N]).
    let a_mn_major = matches!(a_op, Operand::Smem(s) if s.transposed);
    let b_mn_major = matches!(b_op, Operand::Smem(s) if !s.transposed);
    for (e, mn_major) in [(a, a_mn_major), (b, b_mn_major)] {
        if mn_major && !row.transposable {
            ck.ctx.error(e, Diag::WgmmaTranspose { dtype: row.operand });
            return;
        }
    }
}
