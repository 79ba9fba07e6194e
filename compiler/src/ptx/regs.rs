//! Register arrays: elementwise arithmetic, math, casts, splats. Every op works on this thread's
//! elements in fragment order, so elementwise code is layout-independent.

use super::gen::Gen;
use super::memory::regs_for_layout;
use super::scalar;
use super::value::Val;
use super::writer::Class;
use crate::typeck::{RegsTy, Ty};
use crate::types::DType;
use crate::types::Layout;
use tessel_ir::ops::{BinOp, MathFn, MathFn2, ReduceOp, UnOp};
use tessel_ir::program::Expr;

fn result_ty(e: &Expr) -> Option<RegsTy> {
    match &e.ty {
        Ty::Regs(r) => Some(r.clone()),
        _ => None,
    }
}

/// The operand's registers, widened to `layout`'s element count (splats and scalars repeat).
fn operand_regs(g: &mut Gen, e: &Expr, dtype: DType, layout: Layout, shape: &[i64]) -> Vec<String> {
    // (An untyped float literal is written in `dtype` directly: rounded once, as the interpreter.)
    let v = g.scalar_operand(e, dtype);
    let n = super::layout::count(layout, shape);
    match v {
        Val::Regs { regs, ty } => regs_for_layout(g, &ty, &regs, layout, shape),
        Val::Const(c) => {
            let r = g.const_reg(dtype, c as f64);
            vec![r; n]
        }
        Val::Scalar { reg, dtype: from } => {
            let r = scalar::convert(g, from, dtype, &reg);
            vec![r; n]
        }
        _ => Vec::new(),
    }
}

pub fn emit_splat(g: &mut Gen, e: &Expr, value: &Expr) -> Val {
    let Some(ty) = result_ty(e) else { return g.internal(format!("a register-array op typed {}", e.ty)) };
    let v = g.scalar_operand(value, ty.dtype);
    let reg = match v {
        Val::Const(c) => g.const_reg(ty.dtype, c as f64),
        Val::Scalar { reg, dtype } => {
            let r = scalar::convert(g, dtype, ty.dtype, &reg);
            // A fresh register, so that later writes through a mutable name do not alias the scalar.
            let out = g.w.reg_for(ty.dtype);
            g.mov(ty.dtype, &out, &r);
            out
        }
        other => return g.internal(format!("a splat of {other:?}")),
    };
    Val::Regs { regs: vec![reg], ty }
}

pub fn emit_binary(g: &mut Gen, e: &Expr, op: BinOp, lhs: &Expr, rhs: &Expr) -> Val {
    let Some(ty) = result_ty(e) else { return g.internal(format!("a register-array op typed {}", e.ty)) };
    let operand_dtype = match (&lhs.ty, &rhs.ty) {
        (Ty::Regs(r), _) | (_, Ty::Regs(r)) => r.dtype,
        _ => ty.dtype,
    };
    let a = operand_regs(g, lhs, operand_dtype, ty.layout, &ty.shape);
    let b = operand_regs(g, rhs, operand_dtype, ty.layout, &ty.shape);
    let regs = a
        .iter()
        .zip(&b)
        .map(|(x, y)| match scalar::binary(g, op, operand_dtype, x, y) {
            Val::Scalar { reg, .. } => reg,
            _ => x.clone(),
        })
        .collect();
    Val::Regs { regs, ty }
}

pub fn emit_unary(g: &mut Gen, op: UnOp, regs: Vec<String>, ty: RegsTy) -> Val {
    let regs = regs
        .iter()
        .map(|r| match scalar::unary(g, op, ty.dtype, r) {
            Val::Scalar { reg, .. } => reg,
            _ => r.clone(),
        })
        .collect();
    Val::Regs { regs, ty }
}

/// One math function on an f32 register (PTX ISA §9.7.3: ex2.approx, lg2.approx, sqrt.rn, ...).
fn math_f32(g: &mut Gen, func: MathFn, x: &str) -> String {
    let r = g.w.reg(Class::F32);
    match func {
        MathFn::Exp2 => g.w.ins(format!("ex2.approx.ftz.f32 {r}, {x}")),
        MathFn::Exp => {
            let t = g.w.reg(Class::F32);
            g.w.ins(format!("mul.f32 {t}, {x}, 0f3FB8AA3B"));
            g.w.ins(format!("ex2.approx.ftz.f32 {r}, {t}"));
        }
        MathFn::Log2 => g.w.ins(format!("lg2.approx.ftz.f32 {r}, {x}")),
        MathFn::Log => {
            let t = g.w.reg(Class::F32);
            g.w.ins(format!("lg2.approx.ftz.f32 {t}, {x}"));
            g.w.ins(format!("mul.f32 {r}, {t}, 0f3F317218"));
        }
        MathFn::Sqrt => g.w.ins(format!("sqrt.rn.f32 {r}, {x}")),
        MathFn::Rsqrt => g.w.ins(format!("rsqrt.approx.ftz.f32 {r}, {x}")),
        MathFn::Tanh => g.w.ins(format!("tanh.approx.f32 {r}, {x}")),
        MathFn::Abs => g.w.ins(format!("abs.f32 {r}, {x}")),
        MathFn::Recip => g.w.ins(format!("rcp.rn.f32 {r}, {x}")),
        MathFn::Floor => g.w.ins(format!("cvt.rmi.f32.f32 {r}, {x}")),
        MathFn::Ceil => g.w.ins(format!("cvt.rpi.f32.f32 {r}, {x}")),
        MathFn::Round => g.w.ins(format!("cvt.rni.f32.f32 {r}, {x}")),
        MathFn::Trunc => g.w.ins(format!("cvt.rzi.f32.f32 {r}, {x}")),
    }
    r
}

fn math_one(g: &mut Gen, func: MathFn, dtype: DType, x: &str) -> String {
    if func == MathFn::Abs && dtype.is_int() {
        let r = g.w.reg_for(dtype);
        g.w.ins(format!("abs.{} {r}, {x}", scalar::arith_type(dtype)));
        // `abs` of the narrow signed minimum (`i8` -128) is out of range: it wraps to itself.
        return if scalar::narrow_int(dtype) { scalar::wrap(g, dtype, &r) } else { r };
    }
    let f = scalar::convert(g, dtype, DType::F32, x);
    let y = math_f32(g, func, &f);
    scalar::convert(g, DType::F32, dtype, &y)
}

pub fn emit_math(g: &mut Gen, e: &Expr, func: MathFn, arg: &Expr) -> Val {
    match g.expr(arg) {
        Val::Regs { regs, ty } => {
            let regs = regs.iter().map(|r| math_one(g, func, ty.dtype, r)).collect();
            Val::Regs { regs, ty }
        }
        Val::Scalar { reg, dtype } => Val::Scalar { reg: math_one(g, func, dtype, &reg), dtype },
        Val::Const(c) => {
            let d = match &e.ty {
                Ty::Scalar(d) => *d,
                _ => DType::F32,
            };
            let reg = g.const_reg(d, c as f64);
            Val::Scalar { reg: math_one(g, func, d, &reg), dtype: d }
        }
        other => other,
    }
}

fn minmax(g: &mut Gen, func: MathFn2, dtype: DType, a: &str, b: &str) -> String {
    let name = if func == MathFn2::Max { "max" } else { "min" };
    if matches!(dtype, DType::Bf16 | DType::F16 | DType::F8E4M3 | DType::F8E5M2) {
        let (fa, fb) = (scalar::convert(g, dtype, DType::F32, a), scalar::convert(g, dtype, DType::F32, b));
        let r = g.w.reg(Class::F32);
        g.w.ins(format!("{name}.f32 {r}, {fa}, {fb}"));
        return scalar::convert(g, DType::F32, dtype, &r);
    }
    let r = g.w.reg_for(dtype);
    g.w.ins(format!("{name}.{} {r}, {a}, {b}", scalar::arith_type(dtype)));
    r
}

pub fn emit_math2(g: &mut Gen, e: &Expr, func: MathFn2, lhs: &Expr, rhs: &Expr) -> Val {
    match e.ty.clone() {
        Ty::Regs(ty) => {
            let a = operand_regs(g, lhs, ty.dtype, ty.layout, &ty.shape);
            let b = operand_regs(g, rhs, ty.dtype, ty.layout, &ty.shape);
            let regs = a.iter().zip(&b).map(|(x, y)| minmax(g, func, ty.dtype, x, y)).collect();
            Val::Regs { regs, ty }
        }
        Ty::Scalar(d) => {
            // Each operand in the result's dtype: an untyped float literal arrives as f32 otherwise.
            match (g.scalar_arg(lhs, d), g.scalar_arg(rhs, d)) {
                (Some(x), Some(y)) => Val::Scalar { reg: minmax(g, func, d, &x, &y), dtype: d },
                _ => g.internal("a max or min of operands that are not scalars"),
            }
        }
        other => g.internal(format!("a max or min typed {other}")),
    }
}

/// `fma(a, b, c)`: `fma.rn.f32` per element, one rounding (f16 and bf16 through f32, like the
/// math functions).
pub fn emit_fma(g: &mut Gen, e: &Expr, operands: [&Expr; 3]) -> Val {
    match e.ty.clone() {
        Ty::Regs(ty) => {
            let [a, b, c] = operands.map(|x| operand_regs(g, x, ty.dtype, ty.layout, &ty.shape));
            let regs = a.iter().zip(&b).zip(&c).map(|((x, y), z)| fma_one(g, ty.dtype, [x, y, z])).collect();
            Val::Regs { regs, ty }
        }
        Ty::Scalar(d) => {
            // Each operand in the fma's dtype, as for the other scalar operations (`Gen::binary`).
            match operands.map(|x| g.scalar_arg(x, d)) {
                [Some(x), Some(y), Some(z)] => Val::Scalar { reg: fma_one(g, d, [&x, &y, &z]), dtype: d },
                _ => g.internal("an fma of operands that are not scalars"),
            }
        }
        other => g.internal(format!("an fma typed {other}")),
    }
}

fn fma_one(g: &mut Gen, dtype: DType, operands: [&String; 3]) -> String {
    let [a, b, c] = operands.map(|x| scalar::convert(g, dtype, DType::F32, x));
    let r = g.w.reg(Class::F32);
    g.w.ins(format!("fma.rn.f32 {r}, {a}, {b}, {c}"));
    scalar::convert(g, DType::F32, dtype, &r)
}

pub fn emit_cast(g: &mut Gen, e: &Expr, value: &Expr, to: DType) -> Val {
    match (g.expr(value), e.ty.clone()) {
        (Val::Regs { regs, ty: from }, Ty::Regs(ty)) => {
            let regs = match (from.dtype, to) {
                (DType::F32, DType::Bf16 | DType::F16) if regs.len() % 2 == 0 => narrow_pairs(g, to, &regs),
                _ => regs.iter().map(|r| scalar::convert(g, from.dtype, to, r)).collect(),
            };
            Val::Regs { regs, ty }
        }
        (Val::Scalar { reg, dtype }, _) => Val::Scalar { reg: scalar::convert(g, dtype, to, &reg), dtype: to },
        (Val::Const(c), _) => Val::Scalar { reg: g.const_reg(to, c as f64), dtype: to },
        (other, _) => other,
    }
}

/// `x.bitcast::<to>()`, register by register (`bits_as`).
pub fn emit_bitcast(g: &mut Gen, value: &Expr, to: DType) -> Val {
    let Some(from) = value.ty.elem_dtype() else {
        return g.internal(format!("a bitcast of a value typed {}", value.ty));
    };
    match g.expr(value) {
        Val::Regs { regs, ty } => {
            let regs = regs.iter().map(|r| bits_as(g, from, to, r)).collect();
            Val::Regs { regs, ty: RegsTy { dtype: to, ..ty } }
        }
        v => match g.scalar_in(v, from) {
            Some(reg) => Val::Scalar { reg: bits_as(g, from, to, &reg), dtype: to },
            None => g.internal("a bitcast of something other than a scalar or a register array"),
        },
    }
}

/// The bits of register `r` (holding a `from`) as a `to` of the same width. 16-bit floats and
/// fp8 (in the low byte) live in `.b16` registers, 8- and 16-bit integers sign- or zero-extended
/// in `.b32` ones: between those the bits are extended by the integer's signedness or truncated.
/// Integers of one width convert as `as` does (wrapping keeps the bits).
fn bits_as(g: &mut Gen, from: DType, to: DType, r: &str) -> String {
    let out = |g: &mut Gen| g.w.reg_for(to);
    match (Class::of(from), Class::of(to)) {
        _ if from == to => r.to_string(),
        (Class::F32, Class::F32) => r.to_string(),
        (Class::F32, Class::B32) | (Class::B32, Class::F32) | (Class::B16, Class::B16) => {
            let d = out(g);
            g.mov(to, &d, r);
            d
        }
        (Class::B16, Class::B32) => {
            let (sign, d) = (if to.class() == crate::types::Class::Signed { "s" } else { "u" }, out(g));
            g.w.ins(format!("cvt.{sign}32.{sign}{} {d}, {r}", to.bits()));
            d
        }
        (Class::B32, Class::B16) => {
            let d = out(g);
            g.w.ins(format!("cvt.u16.u32 {d}, {r}"));
            if to.bits() == 8 {
                g.w.ins(format!("and.b16 {d}, {d}, 0xFF"));
            }
            d
        }
        _ => scalar::convert(g, from, to, r),
    }
}

/// f32 to bf16 / f16 two elements at a time (`cvt.rn.bf16x2.f32`, the same rounding as one at a
/// time): the halves come from one 32-bit register, which ptxas then keeps as the pair (an
/// epilogue that holds a 64 x 256 tile of bf16 needs 64 registers, not 128).
fn narrow_pairs(g: &mut Gen, to: DType, regs: &[String]) -> Vec<String> {
    let name = if to == DType::Bf16 { "bf16x2" } else { "f16x2" };
    let mut out = Vec::with_capacity(regs.len());
    for pair in regs.chunks(2) {
        let (packed, lo, hi) = (g.w.reg(Class::B32), g.w.reg_for(to), g.w.reg_for(to));
        // The first source lands in the upper half.
        g.w.ins(format!("cvt.rn.{name}.f32 {packed}, {}, {}", pair[1], pair[0]));
        g.w.ins(format!("mov.b32 {{{lo}, {hi}}}, {packed}"));
        out.push(lo);
        out.push(hi);
    }
    out
}

pub fn emit_iota(g: &mut Gen, e: &Expr, axis: u32) -> Val {
    let Some(ty) = result_ty(e) else { return g.internal(format!("a register-array op typed {}", e.ty)) };
    let frag = g.fragment(ty.layout, &ty.shape, ty.dtype);
    let regs = (0..frag.len())
        .map(|el| {
            let coords = super::memory::elem_coords(g, &frag, el, &ty.shape);
            scalar::convert(g, DType::I32, ty.dtype, &coords[axis as usize])
        })
        .collect();
    Val::Regs { regs, ty }
}

pub fn emit_reduce(g: &mut Gen, e: &Expr, value: &Expr, op: ReduceOp, axis: u32) -> Val {
    super::reduce::emit(g, e, value, op, axis)
}

pub fn emit_broadcast(g: &mut Gen, e: &Expr, value: &Expr) -> Val {
    super::relayout::emit_broadcast(g, e, value)
}

pub fn emit_to_layout(g: &mut Gen, e: &Expr, value: &Expr) -> Val {
    super::relayout::emit_to_layout(g, e, value)
}

pub fn emit_layout_cast(g: &mut Gen, e: &Expr, value: &Expr) -> Val {
    super::relayout::emit_layout_cast(g, e, value)
}
