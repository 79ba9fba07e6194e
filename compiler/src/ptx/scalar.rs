//! Scalars: literals, arithmetic, comparisons and conversions (PTX ISA §9.7.1-9.7.3, §9.7.9.21 cvt).

use super::gen::Gen;
use super::value::Val;
use super::writer::Class;
use crate::typeck::Ty;
use crate::types::{Class as DClass, DType};
use tessel_ir::ops::{BinOp, UnOp};
use tessel_ir::program::{Expr, ExprKind, LitValue, Literal};

/// The PTX spelling of a constant of `dtype`.
pub fn literal(dtype: DType, value: f64) -> String {
    match dtype {
        DType::F32 => format!("0f{:08X}", (value as f32).to_bits()),
        // A tf32 constant is an f32 with the low 13 mantissa bits rounded off, as `cvt.rna.tf32.f32`
        // (and the interpreter) would round it.
        DType::Tf32 => format!("0f{:08X}", crate::types::tf32_round(value as f32).to_bits()),
        DType::Bf16 | DType::F16 | DType::F8E4M3 | DType::F8E5M2 => {
            // 8-bit floats live in the low byte of a `.b16` register.
            format!("0x{:04X}", crate::types::narrow_float_bits(dtype, value).unwrap_or(0))
        }
        DType::Bool => (if value != 0.0 { "1" } else { "0" }).into(),
        // A narrow integer constant is its wrapped value, extended like every narrow register
        // (`narrow_int`): an untyped `300` beside a `u8` is 44, as in the interpreter.
        d if narrow_int(d) => format!("{}", d.wrap(value as i64)),
        _ => format!("{}", value as i64),
    }
}

/// Whether `dtype` is an integer narrower than 32 bits (i4, i8, u8, i16, u16). Such a value lives in
/// a `.b32` register holding it sign- or zero-extended from its width, by its signedness: loads
/// (`ld.s8`, `ld.u16`, ..) and constants are extended, and every operation whose 32-bit result can
/// leave the dtype's range (`+ - * <<`, signed `/` and `-x`, unsigned `!`, `abs`, integer to
/// narrower integer conversions) is followed by [`wrap`]. So comparisons, shifts, divisions,
/// conversions and stores read the value the interpreter computes, which wraps to the dtype's width.
pub fn narrow_int(dtype: DType) -> bool {
    dtype.is_int() && dtype.bits() < 32
}

/// The narrow integer `r` (a `.b32` whose low `dtype.bits()` bits are the value) wrapped to its
/// width: those bits sign- or zero-extended, as `DType::wrap` and Rust's `as` (`bfe.s32`/`bfe.u32`).
pub fn wrap(g: &mut Gen, dtype: DType, r: &str) -> String {
    let sign = if dtype.is_unsigned() { "u32" } else { "s32" };
    let w = g.w.reg(Class::B32);
    g.w.ins(format!("bfe.{sign} {w}, {r}, 0, {}", dtype.bits()));
    w
}

/// The PTX type suffix for arithmetic on `dtype`.
pub fn arith_type(dtype: DType) -> &'static str {
    match dtype {
        DType::F32 | DType::Tf32 => "f32",
        DType::I64 => "s64",
        DType::U64 => "u64",
        d if d.class() == DClass::Unsigned => "u32",
        _ => "s32",
    }
}

/// The dtype of a scalar operand's value: a literal's as the lowering typed it (an untyped one
/// beside an operand of another dtype takes that operand's, `Literal::dtype`), anything else its
/// own.
fn value_dtype(e: &Expr) -> Option<DType> {
    match (literal_of(e), &e.ty) {
        (Some(lit), _) => Some(lit.dtype),
        (None, Ty::Scalar(d)) => Some(*d),
        (None, _) => None,
    }
}

/// The literal `e` is, or negates.
fn literal_of(e: &Expr) -> Option<&Literal> {
    match &e.kind {
        ExprKind::Lit(lit) => Some(lit),
        ExprKind::Unary { op: UnOp::Neg, operand } => literal_of(operand),
        _ => None,
    }
}

/// The value of a float literal (`0.5`, `-2.0`) that the lowering gave `dtype`, another dtype than
/// its own type (`s * 2.0` with a bf16 `s`): it is written in `dtype` directly, rounded once from
/// its written value as the interpreter rounds it.
pub fn adopted_float(e: &Expr, dtype: DType) -> Option<f64> {
    if e.ty == Ty::Scalar(dtype) {
        return None;
    }
    match &e.kind {
        ExprKind::Lit(Literal { value: LitValue::Float(v), dtype: d, .. }) if *d == dtype => Some(*v),
        ExprKind::Unary { op: UnOp::Neg, operand } => adopted_float(operand, dtype).map(|v| -v),
        _ => None,
    }
}

/// The dtype both operands of a scalar binary operation are computed in: the left one's value's.
pub fn operand_dtype(lhs: &Expr, rhs: &Expr) -> DType {
    value_dtype(lhs).or_else(|| value_dtype(rhs)).unwrap_or(DType::I32)
}

/// Folds integer constants at compile time, in `i64` (the caller wraps the result to the operands'
/// width). Every operation wraps rather than overflows: typeck does not evaluate a `let`, so a
/// checked kernel can fold to `i64::MIN` and then divide it by -1.
pub fn fold(op: BinOp, a: i64, b: i64) -> Option<i64> {
    Some(match op {
        BinOp::Add => a.wrapping_add(b),
        BinOp::Sub => a.wrapping_sub(b),
        BinOp::Mul => a.wrapping_mul(b),
        BinOp::Div if b != 0 => a.wrapping_div(b),
        BinOp::Rem if b != 0 => a.wrapping_rem(b),
        BinOp::Shl if (0..32).contains(&b) => a << b,
        BinOp::Shr if (0..32).contains(&b) => a >> b,
        BinOp::BitAnd => a & b,
        BinOp::BitOr => a | b,
        BinOp::BitXor => a ^ b,
        _ => return None,
    })
}

/// A comparison of two known integers of `dtype` (signed, or both non-negative: constants of
/// unsigned dtypes past `i64::MAX` are not compared here).
pub fn fold_comparison(op: BinOp, dtype: DType, a: i64, b: i64) -> Option<bool> {
    if dtype.is_float() || (dtype.is_unsigned() && (a < 0 || b < 0)) {
        return None;
    }
    Some(match op {
        BinOp::Eq => a == b,
        BinOp::Ne => a != b,
        BinOp::Lt => a < b,
        BinOp::Le => a <= b,
        BinOp::Gt => a > b,
        BinOp::Ge => a >= b,
        _ => return None,
    })
}

/// Whether arithmetic on `dtype` runs in f32, the result rounded back: 16- and 8-bit floats (PTX
/// has no scalar arithmetic on them that rounds like the interpreter), and tf32, whose results
/// are rounded to tf32 like every value of a dtype.
fn through_f32(dtype: DType) -> bool {
    matches!(dtype, DType::Bf16 | DType::F16 | DType::F8E4M3 | DType::F8E5M2 | DType::Tf32)
}

/// `lhs op rhs` on scalars in registers of `dtype`; the result is `dtype` or a predicate.
pub fn binary(g: &mut Gen, op: BinOp, dtype: DType, a: &str, b: &str) -> Val {
    if through_f32(dtype) {
        let (fa, fb) = (to_f32(g, dtype, a), to_f32(g, dtype, b));
        return match binary(g, op, DType::F32, &fa, &fb) {
            Val::Scalar { reg, dtype: DType::F32 } => Val::Scalar { reg: from_f32(g, dtype, &reg), dtype },
            other => other,
        };
    }
    let t = arith_type(dtype);
    if let Some(cmp) = compare(op) {
        let p = g.w.reg(Class::Pred);
        let ty = if dtype == DType::Bool { "b16" } else { t };
        if dtype == DType::Bool {
            let r = g.w.reg(Class::Pred);
            g.w.ins(format!("xor.pred {r}, {a}, {b}"));
            let neg = if op == BinOp::Eq { "!" } else { "" };
            g.w.ins(format!("mov.pred {p}, {neg}{r}"));
        } else {
            g.w.ins(format!("setp.{cmp}.{ty} {p}, {a}, {b}"));
        }
        return Val::Scalar { reg: p, dtype: DType::Bool };
    }
    let r = g.w.reg_for(dtype);
    let bits = if matches!(dtype, DType::I64 | DType::U64) { "b64" } else { "b32" };
    let text = match (op, dtype) {
        (BinOp::And | BinOp::BitAnd, DType::Bool) => format!("and.pred {r}, {a}, {b}"),
        (BinOp::Or | BinOp::BitOr, DType::Bool) => format!("or.pred {r}, {a}, {b}"),
        (BinOp::BitXor, DType::Bool) => format!("xor.pred {r}, {a}, {b}"),
        (BinOp::Add, _) => format!("add.{t} {r}, {a}, {b}"),
        (BinOp::Sub, _) => format!("sub.{t} {r}, {a}, {b}"),
        (BinOp::Mul, DType::F32 | DType::Tf32) => format!("mul.rn.f32 {r}, {a}, {b}"),
        (BinOp::Mul, _) => format!("mul.lo.{t} {r}, {a}, {b}"),
        (BinOp::Div, DType::F32 | DType::Tf32) => format!("div.rn.f32 {r}, {a}, {b}"),
        (BinOp::Div, _) => format!("div.{t} {r}, {a}, {b}"),
        (BinOp::Rem, _) => format!("rem.{t} {r}, {a}, {b}"),
        (BinOp::Shl, _) => format!("shl.{bits} {r}, {a}, {b}"),
        (BinOp::Shr, _) => format!("shr.{t} {r}, {a}, {b}"),
        (BinOp::BitAnd, _) => format!("and.{bits} {r}, {a}, {b}"),
        (BinOp::BitOr, _) => format!("or.{bits} {r}, {a}, {b}"),
        (BinOp::BitXor, _) => format!("xor.{bits} {r}, {a}, {b}"),
        _ => format!("mov.{bits} {r}, {a}"),
    };
    g.w.ins(text);
    // A narrow integer result in range stays so (`>>`, `%`, bit operations, unsigned `/`); the
    // others wrap (`i8` -128 / -1 is 128 in 32 bits).
    let leaves_range =
        matches!(op, BinOp::Add | BinOp::Sub | BinOp::Mul | BinOp::Shl) || (op == BinOp::Div && !dtype.is_unsigned());
    if narrow_int(dtype) && leaves_range {
        return Val::Scalar { reg: wrap(g, dtype, &r), dtype };
    }
    Val::Scalar { reg: r, dtype }
}

fn compare(op: BinOp) -> Option<&'static str> {
    Some(match op {
        BinOp::Eq => "eq",
        BinOp::Ne => "ne",
        BinOp::Lt => "lt",
        BinOp::Le => "le",
        BinOp::Gt => "gt",
        BinOp::Ge => "ge",
        _ => return None,
    })
}

pub fn unary(g: &mut Gen, op: UnOp, dtype: DType, a: &str) -> Val {
    let r = g.w.reg_for(dtype);
    match (op, dtype) {
        (UnOp::Not, DType::Bool) => g.w.ins(format!("not.pred {r}, {a}")),
        (UnOp::Not, DType::I64 | DType::U64) => g.w.ins(format!("not.b64 {r}, {a}")),
        (UnOp::Not, _) => g.w.ins(format!("not.b32 {r}, {a}")),
        // Floats narrower than f32 flip their sign bit: bit 15, or bit 7 for fp8 (which lives in
        // the low byte of its `.b16` register).
        (UnOp::Neg, DType::Bf16 | DType::F16) => g.w.ins(format!("xor.b16 {r}, {a}, 0x8000")),
        (UnOp::Neg, DType::F8E4M3 | DType::F8E5M2) => g.w.ins(format!("xor.b16 {r}, {a}, 0x0080")),
        (UnOp::Neg, _) => g.w.ins(format!("neg.{} {r}, {a}", arith_type(dtype))),
    }
    // `!` of a sign-extended value is sign-extended, of a zero-extended one is not; `-` of the
    // signed minimum leaves the range (typeck rejects `-` on unsigned values).
    let leaves_range = match op {
        UnOp::Not => dtype.is_unsigned(),
        UnOp::Neg => !dtype.is_unsigned(),
    };
    if narrow_int(dtype) && leaves_range {
        return Val::Scalar { reg: wrap(g, dtype, &r), dtype };
    }
    Val::Scalar { reg: r, dtype }
}

/// A 16-bit float register widened to f32.
pub fn to_f32(g: &mut Gen, dtype: DType, a: &str) -> String {
    convert(g, dtype, DType::F32, a)
}

pub fn from_f32(g: &mut Gen, dtype: DType, a: &str) -> String {
    convert(g, DType::F32, dtype, a)
}

/// `cvt` between any two dtypes (rounding to nearest even, saturating to finite for fp8, like the
/// interpreter); integer to narrower integer wraps (`int_to_narrow`).
pub fn convert(g: &mut Gen, from: DType, to: DType, a: &str) -> String {
    if from == to {
        return a.to_string();
    }
    if to == DType::Bool {
        let p = g.w.reg(Class::Pred);
        let zero = literal(from, 0.0);
        let t = match from {
            DType::Bf16 | DType::F16 | DType::F8E4M3 | DType::F8E5M2 => {
                let f = convert(g, from, DType::F32, a);
                g.w.ins(format!("setp.ne.f32 {p}, {f}, 0f00000000"));
                return p;
            }
            _ => arith_type(from),
        };
        g.w.ins(format!("setp.ne.{t} {p}, {a}, {zero}"));
        return p;
    }
    if from == DType::Bool {
        let one = g.const_reg(to, 1.0);
        let zero = g.const_reg(to, 0.0);
        let r = g.w.reg_for(to);
        let sel = match Class::of(to) {
            Class::F32 => "f32",
            Class::B16 => "b16",
            Class::B64 => "b64",
            _ => "b32",
        };
        g.w.ins(format!("selp.{sel} {r}, {one}, {zero}, {a}"));
        return r;
    }
    match (from, to) {
        (DType::F8E4M3 | DType::F8E5M2, _) => {
            let h = fp8_to_f16(g, from, a);
            convert(g, DType::F16, to, &h)
        }
        (_, DType::F8E4M3 | DType::F8E5M2) => {
            let f = convert(g, from, DType::F32, a);
            f32_to_fp8(g, to, &f)
        }
        _ => plain_cvt(g, from, to, a),
    }
}

/// One `cvt` instruction between PTX-native types.
fn plain_cvt(g: &mut Gen, from: DType, to: DType, a: &str) -> String {
    if from.is_int() && narrow_int(to) {
        return int_to_narrow(g, from, to, a);
    }
    let r = g.w.reg_for(to);
    let name = |d: DType| match d {
        DType::Bf16 => "bf16",
        DType::F16 => "f16",
        DType::F32 | DType::Tf32 => "f32",
        DType::I8 | DType::I4 => "s8",
        DType::U8 => "u8",
        DType::I16 => "s16",
        DType::U16 => "u16",
        DType::I32 => "s32",
        DType::U32 => "u32",
        DType::I64 => "s64",
        DType::U64 => "u64",
        _ => "b32",
    };
    let (f, t) = (name(from), name(to));
    if from == DType::Tf32 || to == DType::Tf32 {
        // tf32 values are f32 bit patterns with 13 low mantissa bits zero (PTX cvt.rna.tf32.f32).
        if to == DType::Tf32 {
            // The `.tf32` result is a `.b32` operand: ptxas rejects an `.f32` register there.
            let src = convert(g, from, DType::F32, a);
            let bits = g.w.reg(Class::B32);
            g.w.ins(format!("cvt.rna.tf32.f32 {bits}, {src}"));
            g.w.ins(format!("mov.b32 {r}, {bits}"));
        } else {
            return convert(g, DType::F32, to, a);
        }
        return r;
    }
    let rounding = match (from.is_float(), to.is_float()) {
        (true, true) if to.bits() < from.bits() => ".rn",
        // Float to integer truncates toward zero and saturates, NaN giving 0, like Rust's `as` and the
        // interpreter (`cvt.rzi.sat`; `.rni` rounded to nearest, which the GPU check caught).
        (true, false) => ".rzi.sat",
        (false, true) => ".rn",
        _ => "",
    };
    // Narrow integers live extended in 32-bit registers (`narrow_int`): integer conversions go
    // through their 32-bit form.
    let (f, t) = if from.is_int() && to.is_int() {
        let ft = if from.class() == DClass::Unsigned { "u32" } else { "s32" };
        let tt = match to {
            DType::I64 => "s64",
            DType::U64 => "u64",
            d if d.class() == DClass::Unsigned => "u32",
            _ => "s32",
        };
        let ft = if from.bits() == 64 { f } else { ft };
        (ft, tt)
    } else {
        (
            if from.is_int() && from.bits() < 32 {
                if from.class() == DClass::Unsigned {
                    "u32"
                } else {
                    "s32"
                }
            } else {
                f
            },
            t,
        )
    };
    if to.is_int() && to.bits() < 32 {
        let tt = if to.class() == DClass::Unsigned { "u32" } else { "s32" };
        g.w.ins(format!("cvt{rounding}.{tt}.{f} {r}, {a}"));
        let lo = crate::legality::int_range(to);
        g.w.ins(format!("min.{tt} {r}, {r}, {}", lo.1));
        g.w.ins(format!("max.{tt} {r}, {r}, {}", lo.0));
        return r;
    }
    g.w.ins(format!("cvt{rounding}.{t}.{f} {r}, {a}"));
    r
}

/// An integer converted to a narrower-than-32-bit integer dtype, wrapping like Rust's `as` and the
/// interpreter (not saturating: `300 as u8` is 44): the low bits of the source's 32-bit form,
/// extended by the target's signedness ([`wrap`]); the register itself where every source value is a
/// target value (`i8` to `i16`, `u8` to `i16`), as for a cast to the same dtype (a `let` bound to it
/// gets its own register when the source is a mutable name's: `Gen::shares_a_home`).
fn int_to_narrow(g: &mut Gen, from: DType, to: DType, a: &str) -> String {
    if from.bits() == 64 {
        let low = convert(g, from, DType::U32, a);
        return wrap(g, to, &low);
    }
    let ((lo, hi), (to_lo, to_hi)) = (crate::legality::int_range(from), crate::legality::int_range(to));
    if to_lo <= lo && hi <= to_hi {
        return a.to_string();
    }
    wrap(g, to, a)
}

/// fp8 (low byte of a `.b16`) to f16 via `cvt.rn.f16x2.e4m3x2` (sm_89+).
fn fp8_to_f16(g: &mut Gen, from: DType, a: &str) -> String {
    let pair = g.w.reg(Class::B32);
    let lo = g.w.reg(Class::B16);
    let hi = g.w.reg(Class::B16);
    let kind = if from == DType::F8E4M3 { "e4m3x2" } else { "e5m2x2" };
    g.w.ins(format!("cvt.rn.f16x2.{kind} {pair}, {a}"));
    g.w.ins(format!("mov.b32 {{{lo}, {hi}}}, {pair}"));
    lo
}

/// f32 to fp8 with saturation to the largest finite value (`cvt.rn.satfinite.e4m3x2.f32`).
fn f32_to_fp8(g: &mut Gen, to: DType, f: &str) -> String {
    let r = g.w.reg(Class::B16);
    let kind = if to == DType::F8E4M3 { "e4m3x2" } else { "e5m2x2" };
    g.w.ins(format!("cvt.rn.satfinite.{kind}.f32 {r}, 0f00000000, {f}"));
    r
}
