//! `mma(acc, a, b)`: warp-level `mma.sync` over a warpgroup's register arrays. Catalog rows SEED 001
//! and D2-D8, in the order Mosaic GPU checks them.

use super::{Checker, RegsTy, Ty};
use crate::codes::Code;
use crate::diag::{Diag, MmaOperand};
use crate::legality;
use crate::syntax::ast::{Expr, Layout};
use crate::types::{Class, DType};

pub(super) fn check_mma(ck: &mut Checker, acc: &Expr, a: &Expr, b: &Expr) -> Ty {
    let operands: Vec<Option<RegsTy>> = [acc, a, b].iter().map(|e| regs_operand(ck, e)).collect();
    let [Some(c), Some(x), Some(y)] = <[Option<RegsTy>; 3]>::try_from(operands).unwrap_or([None, None, None]) else {
        return Ty::Error;
    };
    if check_dtypes(ck, acc, &c, a, &x, b, &y)
        && check_shapes(ck, acc, &c, a, &x, b, &y)
        && check_layouts(ck, acc, &c, a, &x, b, &y)
    {
        return Ty::Regs(RegsTy { dtype: c.dtype, shape: c.shape, layout: Layout::MmaAcc });
    }
    Ty::Error
}

fn regs_operand(ck: &mut Checker, e: &Expr) -> Option<RegsTy> {
    match ck.check_expr(e) {
        Ty::Regs(r) => Some(r),
        Ty::Error => None,
        other => {
            ck.ctx.type_error(
                e,
                Code::OperandKind,
                format!("mma takes register arrays, got {other}"),
                "load operands with `.load(Layout::MmaLhs)` / `.load(Layout::MmaRhs)`",
            );
            None
        }
    }
}

/// D5, D4, SEED 001, D2, D3.
fn check_dtypes(ck: &mut Checker, acc: &Expr, c: &RegsTy, a: &Expr, x: &RegsTy, b: &Expr, y: &RegsTy) -> bool {
    if x.dtype != y.dtype {
        ck.ctx.error(b, Diag::MmaDtypeMismatch { a: x.dtype, b: y.dtype });
        return false;
    }
    let Some(row) = legality::mma_row(x.dtype) else {
        ck.ctx.error(a, Diag::MmaOperandType { dtype: x.dtype });
        return false;
    };
    if row.operand.is_int() {
        if !matches!(c.dtype, DType::I32 | DType::U32) {
            ck.ctx.error(acc, Diag::MmaIntAccNot32 { acc: c.dtype });
            return false;
        }
        if c.dtype.class() != Class::Signed {
            ck.ctx.error(acc, Diag::MmaIntAccUnsigned { acc: c.dtype });
            return false;
        }
    } else if c.dtype != DType::F32 {
        ck.ctx.error(acc, Diag::MmaFloatAcc { acc: c.dtype });
        return false;
    }
    true
}

/// D6 (M, N, K agree), D7 (16, 32 or 64 rows), and the per-warp tile.
fn check_shapes(ck: &mut Checker, acc: &Expr, c: &RegsTy, a: &Expr, x: &RegsTy, b: &Expr, y: &RegsTy) -> bool {
    let ([m, n], [m2, k], [k2, n2]) = (c.shape.as_slice(), x.shape.as_slice(), y.shape.as_slice()) else {
        ck.ctx.type_error(
            acc,
            Code::MmaShape,
            "mma takes 2-D operands: acc [M, N], A [M, K], B [K, N]",
            "reshape the operands",
        );
        return false;
    };
    for (dim, p, q, at) in [('M', m, m2, a), ('N', n, n2, b), ('K', k, k2, b)] {
        if p != q {
            ck.ctx.error(at, Diag::MmaDimMismatch { dim, x: *p, y: *q });
            return false;
        }
    }
    let m_warps = m / 16;
    if m % 16 != 0 || !legality::MMA_M_WARPS.contains(&m_warps) {
        ck.ctx.error(acc, Diag::MmaWarps { m_warps });
        return false;
    }
    let (_, inst_n, inst_k) = legality::mma_row(x.dtype).map_or((16, 8, 16), |r| r.shape);
    let n_per_warp = n * m_warps / 4;
    if (n * m_warps) % 4 != 0 || n_per_warp % inst_n != 0 {
        ck.ctx.type_error(
            acc,
            Code::MmaShape,
            format!(
                "the {} warps along N of this mma each need a multiple of {inst_n} columns, but N is {n}",
                4 / m_warps
            ),
            format!("make N a multiple of {}", inst_n * 4 / m_warps),
        );
        return false;
    }
    if k % inst_k != 0 {
        ck.ctx.type_error(
            a,
            Code::MmaShape,
            format!("K must be a multiple of {inst_k} for {} mma, got {k}", x.dtype),
            "pad K or pick another tile",
        );
        return false;
    }
    true
}

/// D8: each operand in its fragment layout.
fn check_layouts(ck: &mut Checker, acc: &Expr, c: &RegsTy, a: &Expr, x: &RegsTy, b: &Expr, y: &RegsTy) -> bool {
    for (e, r, want, which) in [
        (acc, c, Layout::MmaAcc, MmaOperand::Acc),
        (a, x, Layout::MmaLhs, MmaOperand::A),
        (b, y, Layout::MmaRhs, MmaOperand::B),
    ] {
        if r.layout != want {
            ck.ctx.error(e, Diag::MmaLayout { operand: which });
            return false;
        }
    }
    true
}
