//! `mma(acc, a, b)`: warp-level `mma.sync` over a warpgroup's register fragments (PTX ISA
//! #warp-level-matrix-instructions-mma; checked on the H200).
//!
//! The fragments are layout.rs's, for acc [M, N] (`MmaAcc`), A [M, K] (`MmaLhs`), B [K, N]
//! (`MmaRhs`), with `m_warps = M / 16` warps along M and `n_warps = 4 / m_warps` along N:
//! - warp w computes the 16 x N/n_warps block at row block `w % m_warps`, column block
//!   `w / m_warps`; its accumulator element `4j + c` is (row `g + 8(c >> 1)`, column `8j + 2t + (c & 1)`)
//!   of its block, the m16n8 C/D fragment of the block's n8 tile j;
//! - A: warp w holds rows `16(w % m_warps) ..+16`; per K block kk of the instruction, registers r = 0..4
//!   pack the `per_reg = 32 / bits` elements (row `g + 8(r & 1)`, columns
//!   `kstep kk + (kstep / 2)(r >> 1) + per_reg t + e`), which is the instruction's A fragment;
//! - B: every warp holds all of it; n8 tile jb, K block kk, register r = 0..2 pack the elements
//!   (rows `kstep kk + (kstep / 2) r + per_reg t + e`, column `8jb + g`), the instruction's B fragment.
//!
//! Each 32-bit operand register packs its elements with the lowest index in the lowest bits. The
//! B tiles a warp needs depend on `w / m_warps`, known only at run time; one warp-uniform branch per
//! value keeps the choice of registers static. The result goes to fresh registers (`mma` returns a
//! new array), which every branch writes.

use super::gen::Gen;
use super::value::Val;
use super::writer::Class;
use crate::legality;
use crate::typeck::Ty;
use crate::types::DType;
use tessel_ir::program::Expr;

/// What one `mma` needs to know about its instruction and the warp tiling.
struct Plan {
    /// `m16n8k16.row.col.f32.bf16.bf16.f32` and the like.
    form: String,
    /// Elements packed into each 32-bit operand register.
    per_reg: usize,
    /// K blocks of the instruction.
    ksteps: usize,
    m_warps: i64,
    n_warps: i64,
    /// n8 tiles per warp.
    tiles: usize,
    acc_class: Class,
}

fn plan(acc: DType, operand: DType, shape: &[i64], k: i64) -> Option<Plan> {
    let row = legality::mma_row(operand)?;
    let (_, inst_n, inst_k) = row.shape;
    let name = match operand {
        DType::Bf16 => "bf16",
        DType::F16 => "f16",
        DType::F8E4M3 => "e4m3",
        DType::F8E5M2 => "e5m2",
        DType::I8 => "s8",
        DType::I4 => "s4",
        _ => return None,
    };
    let d = if acc == DType::F32 { "f32" } else { "s32" };
    let (m, n) = (shape[0], shape[1]);
    let m_warps = m / 16;
    let n_warps = 4 / m_warps;
    Some(Plan {
        form: format!("m16n{inst_n}k{inst_k}.row.col.{d}.{name}.{name}.{d}"),
        per_reg: (32 / operand.bits()) as usize,
        ksteps: (k / inst_k) as usize,
        m_warps,
        n_warps,
        tiles: (n / n_warps / inst_n) as usize,
        acc_class: if acc == DType::F32 { Class::F32 } else { Class::B32 },
    })
}

pub fn emit_mma(g: &mut Gen, e: &Expr, acc: &Expr, a: &Expr, b: &Expr) -> Val {
    let Ty::Regs(out) = e.ty.clone() else { return g.internal(format!("an mma typed {}", e.ty)) };
    let (cv, av, bv) = (g.expr(acc), g.expr(a), g.expr(b));
    let (Val::Regs { regs: c, .. }, Val::Regs { regs: ar, ty: at }, Val::Regs { regs: br, .. }) = (cv, av, bv) else {
        return g.internal("an mma of operands that are not register arrays");
    };
    let Some(p) = plan(out.dtype, at.dtype, &out.shape, at.shape[1]) else {
        return g.internal(format!("an mma of {} operands into {}", at.dtype, out.dtype));
    };
    g.w.comment(format!("mma {}: {} x {} warps, {} n8 tiles per warp", p.form, p.m_warps, p.n_warps, p.tiles));
    // A is the same for every column block: pack it once. Register r of K block kk holds elements
    // (4kk + r) * per_reg ..
    let a_packed: Vec<String> =
        (0..p.ksteps * 4).map(|q| pack(g, at.dtype, &ar[q * p.per_reg..(q + 1) * p.per_reg])).collect();
    let d: Vec<String> = (0..4 * p.tiles).map(|_| g.w.reg(p.acc_class)).collect();
    let block = g.w.reg(Class::B32);
    if p.n_warps > 1 {
        let w = g.lanes.w.clone();
        g.udiv_const(&block, &w, p.m_warps);
    }
    let end = g.w.label("mma_done");
    for nb in 0..p.n_warps as usize {
        let next = g.w.label("mma_block");
        if p.n_warps > 1 {
            let skip = g.w.reg(Class::Pred);
            g.w.ins(format!("setp.ne.u32 {skip}, {block}, {nb}"));
            g.w.ins(format!("@{skip} bra {next}"));
        }
        for j in 0..p.tiles {
            let jb = nb * p.tiles + j;
            tile(g, &p, at.dtype, &a_packed, &br, jb, &c[4 * j..4 * j + 4], &d[4 * j..4 * j + 4]);
        }
        if p.n_warps > 1 {
            g.w.ins(format!("bra.uni {end}"));
            g.w.put_label(&next);
        }
    }
    if p.n_warps > 1 {
        g.w.put_label(&end);
    }
    Val::Regs { regs: d, ty: out }
}

/// One m16n8 output tile: the K blocks chained through `d`, the first reading `c`. B tile `jb`, K
/// block kk, register r holds B elements `((jb * ksteps + kk) * 2 + r) * per_reg ..`.
#[allow(clippy::too_many_arguments)]
fn tile(g: &mut Gen, p: &Plan, dtype: DType, a: &[String], b: &[String], jb: usize, c: &[String], d: &[String]) {
    for kk in 0..p.ksteps {
        let b_regs: Vec<String> = (0..2)
            .map(|r| {
                let first = ((jb * p.ksteps + kk) * 2 + r) * p.per_reg;
                pack(g, dtype, &b[first..first + p.per_reg])
            })
            .collect();
        let src = if kk == 0 { c } else { d };
        g.w.ins(format!(
            "mma.sync.aligned.{} {{{}}}, {{{}}}, {{{}}}, {{{}}}",
            p.form,
            d.join(", "),
            a[4 * kk..4 * kk + 4].join(", "),
            b_regs.join(", "),
            src.join(", ")
        ));
    }
}

/// Packs elements into one `.b32`, the first in the lowest bits.
/// - 16-bit floats (`.b16` registers): `mov.b32 {lo, hi}`.
/// - fp8 (the byte in the low half of a `.b16`): two pairs, then `prmt` takes bytes 0 and 2 of each.
/// - i8 (sign-extended `.b32`): `prmt` takes byte 0 of each.
/// - i4 (sign-extended `.b32`): `bfi` inserts the low nibble of each at 4e.
pub(super) fn pack(g: &mut Gen, dtype: DType, elems: &[String]) -> String {
    let r = g.w.reg(Class::B32);
    match (dtype, elems) {
        (DType::Bf16 | DType::F16, [lo, hi]) => g.w.ins(format!("mov.b32 {r}, {{{lo}, {hi}}}")),
        (DType::F8E4M3 | DType::F8E5M2, [e0, e1, e2, e3]) => {
            let (p01, p23) = (g.w.reg(Class::B32), g.w.reg(Class::B32));
            g.w.ins(format!("mov.b32 {p01}, {{{e0}, {e1}}}"));
            g.w.ins(format!("mov.b32 {p23}, {{{e2}, {e3}}}"));
            g.w.ins(format!("prmt.b32 {r}, {p01}, {p23}, 0x6420"));
        }
        (DType::I8, [e0, e1, e2, e3]) => {
            let (p01, p23) = (g.w.reg(Class::B32), g.w.reg(Class::B32));
            g.w.ins(format!("prmt.b32 {p01}, {e0}, {e1}, 0x0040"));
            g.w.ins(format!("prmt.b32 {p23}, {e2}, {e3}, 0x0040"));
            g.w.ins(format!("prmt.b32 {r}, {p01}, {p23}, 0x5410"));
        }
        (DType::I4, [first, rest @ ..]) => {
            g.w.ins(format!("and.b32 {r}, {first}, 15"));
            for (e, x) in rest.iter().enumerate() {
                g.w.ins(format!("bfi.b32 {r}, {x}, {r}, {}, 4", 4 * (e + 1)));
            }
        }
        _ => g.w.ins(format!("mov.b32 {r}, 0")),
    }
    r
}
