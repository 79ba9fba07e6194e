//! Numbers: rounding to a dtype, conversions, and the scalar and elementwise operators.
//!
//! Register arrays hold `f64` values that are always exactly representable in their dtype (every
//! tessel dtype but 64-bit integers beyond 2^53 fits in an `f64`); scalars hold integers as `i64`
//! (`u64` as its bits), so 64-bit scalar arithmetic is exact. After every operation the result is
//! rounded to its dtype, so each value is the one the GPU's register would hold.

use float8::{F8E4M3, F8E5M2};
use half::{bf16, f16};
use tessel_ir::ops::{BinOp, MathFn, MathFn2, ReduceOp, UnOp};
use tessel_ir::program::{LitValue, Literal};
use tessel_ir::types::DType;

use super::value::{Array, Scalar};
use crate::{Element, Error, Result};

/// An interpreter error with `msg`.
pub(crate) fn error(msg: impl Into<String>) -> Error {
    Error::Interpreter(msg.into())
}

/// `v` rounded to `dtype` as the GPU's `cvt` does: floats to nearest even (f32, f16, bf16), fp8
/// saturating to the largest finite value (`cvt.rn.satfinite`), tf32 to nearest with ties away
/// (`cvt.rna.tf32.f32`, the only tf32 rounding sm_90 has); integers (assumed integral) wrap to
/// their width; bools are 0 or 1.
pub(crate) fn round(dtype: DType, v: f64) -> f64 {
    match dtype {
        DType::F32 => v as f32 as f64,
        DType::Bf16 => <bf16 as Element>::to_f64(<bf16 as Element>::from_f64(v)),
        DType::F16 => <f16 as Element>::to_f64(<f16 as Element>::from_f64(v)),
        DType::F8E4M3 => <F8E4M3 as Element>::to_f64(<F8E4M3 as Element>::from_f64(v)),
        DType::F8E5M2 => <F8E5M2 as Element>::to_f64(<F8E5M2 as Element>::from_f64(v)),
        DType::Tf32 => tessel_ir::types::tf32_round(v as f32) as f64,
        DType::Bool => bool_f64(v != 0.0),
        DType::U64 => dtype.wrap(to_int(dtype, v)) as u64 as f64,
        DType::I4 | DType::I8 | DType::U8 | DType::I16 | DType::U16 | DType::I32 | DType::U32 | DType::I64 => {
            dtype.wrap(to_int(dtype, v)) as f64
        }
    }
}

/// The bits of `v`, a value of `dtype`: a float's encoding, an integer's two's complement at its
/// width (a NaN becomes a quiet NaN: the interpreter keeps no payloads).
pub(crate) fn to_bits(dtype: DType, v: f64) -> u64 {
    match dtype {
        DType::F32 | DType::Tf32 => u64::from((v as f32).to_bits()),
        DType::Bf16 => u64::from(bf16::from_f64(v).to_bits()),
        DType::F16 => u64::from(f16::from_f64(v).to_bits()),
        DType::F8E4M3 => u64::from(<F8E4M3 as Element>::from_f64(v).to_bits()),
        DType::F8E5M2 => u64::from(<F8E5M2 as Element>::from_f64(v).to_bits()),
        DType::Bool => u64::from(v != 0.0),
        DType::U64 => v as u64,
        _ => (to_int(dtype, v) as u64) & (u64::MAX >> (64 - dtype.bits())),
    }
}

/// The value of `dtype` whose bits are `bits` (the inverse of [`to_bits`]).
pub(crate) fn from_bits(dtype: DType, bits: u64) -> f64 {
    match dtype {
        DType::F32 | DType::Tf32 => f64::from(f32::from_bits(bits as u32)),
        DType::Bf16 => bf16::from_bits(bits as u16).to_f64(),
        DType::F16 => f16::from_bits(bits as u16).to_f64(),
        DType::F8E4M3 => <F8E4M3 as Element>::to_f64(F8E4M3::from_bits(bits as u8)),
        DType::F8E5M2 => <F8E5M2 as Element>::to_f64(F8E5M2::from_bits(bits as u8)),
        DType::Bool => bool_f64(bits != 0),
        DType::U64 => bits as f64,
        _ => dtype.wrap(bits as i64) as f64,
    }
}

/// What a tensor core reads from a tf32 operand: the low 13 mantissa bits are ignored.
pub(crate) fn tf32_truncate(v: f64) -> f64 {
    f32::from_bits((v as f32).to_bits() & !0x1fff) as f64
}

fn bool_f64(b: bool) -> f64 {
    if b {
        1.0
    } else {
        0.0
    }
}

/// An integral `f64` of an integer dtype as `i64` (`u64` as its bits).
pub(crate) fn to_int(dtype: DType, v: f64) -> i64 {
    if dtype == DType::U64 {
        v as u64 as i64
    } else {
        v as i64
    }
}

/// `.cast::<to>()` of one array element: float to float rounds (as [`round`]); float to integer
/// truncates toward zero and saturates, NaN giving 0 (`cvt.rzi.sat`, Rust's `as`); integer to
/// integer wraps (sign- or zero-extending by the source's signedness); anything to bool is `!= 0`.
pub(crate) fn convert(from: DType, to: DType, v: f64) -> f64 {
    if to == DType::Bool {
        return bool_f64(v != 0.0);
    }
    if to.is_float() || !from.is_float() {
        return round(to, v);
    }
    match to {
        DType::I4 if v.is_nan() => 0.0,
        DType::I4 => v.trunc().clamp(-8.0, 7.0),
        DType::I8 => v as i8 as f64,
        DType::U8 => v as u8 as f64,
        DType::I16 => v as i16 as f64,
        DType::U16 => v as u16 as f64,
        DType::I32 => v as i32 as f64,
        DType::U32 => v as u32 as f64,
        DType::I64 => v as i64 as f64,
        DType::U64 => v as u64 as f64,
        _ => round(to, v),
    }
}

impl Scalar {
    /// A literal of the program: its written value rounded to its dtype, as `cast` rounds.
    pub(crate) fn literal(lit: Literal) -> Scalar {
        let written = match lit.value {
            LitValue::Int(v) => Scalar::Int(v, DType::I64),
            LitValue::Float(v) => Scalar::Float(v, DType::F32),
            LitValue::Bool(b) => return Scalar::Bool(b),
        };
        written.cast(lit.dtype)
    }

    pub(crate) fn dtype(self) -> DType {
        match self {
            Scalar::Int(_, d) | Scalar::Float(_, d) => d,
            Scalar::Bool(_) => DType::Bool,
        }
    }

    /// The value as an `f64` (exact but for 64-bit integers beyond 2^53).
    pub(crate) fn to_f64(self) -> f64 {
        match self {
            Scalar::Int(v, DType::U64) => v as u64 as f64,
            Scalar::Int(v, _) => v as f64,
            Scalar::Float(v, _) => v,
            Scalar::Bool(b) => bool_f64(b),
        }
    }

    /// The value as an integer (an index, a loop bound): floats truncate.
    pub(crate) fn to_i64(self) -> i64 {
        match self {
            Scalar::Int(v, _) => v,
            Scalar::Float(v, _) => v as i64,
            Scalar::Bool(b) => i64::from(b),
        }
    }

    /// A scalar of `dtype` holding the array element `v` (already a value of `dtype`).
    pub(crate) fn of(dtype: DType, v: f64) -> Scalar {
        match dtype {
            DType::Bool => Scalar::Bool(v != 0.0),
            d if d.is_float() => Scalar::Float(v, d),
            d => Scalar::Int(to_int(d, v), d),
        }
    }

    /// `x as T` (and `.cast::<T>()` on a scalar), with [`convert`]'s rules, exact for 64-bit integers.
    pub(crate) fn cast(self, to: DType) -> Scalar {
        match (self, to) {
            (_, DType::Bool) => Scalar::Bool(self.to_f64() != 0.0),
            (Scalar::Int(v, _), t) if t.is_int() => Scalar::Int(t.wrap(v), t),
            (_, t) if t.is_float() => Scalar::Float(round(t, self.to_f64()), t),
            (s, t) => Scalar::of(t, convert(s.dtype(), t, s.to_f64())),
        }
    }
}

/// `a op b` on scalars of one dtype (an untyped literal was given the other side's dtype when the
/// kernel was lowered; anything else is converted to the left side's dtype).
pub(crate) fn scalar_binop(op: BinOp, a: Scalar, b: Scalar) -> Result<Scalar> {
    let b = if b.dtype() == a.dtype() { b } else { b.cast(a.dtype()) };
    match (a, b) {
        (Scalar::Int(x, d), Scalar::Int(y, _)) => int_op(op, d, x, y),
        (Scalar::Float(x, d), Scalar::Float(y, _)) => Ok(float_op(op, d, x, y)),
        (Scalar::Bool(x), Scalar::Bool(y)) => bool_op(op, x, y),
        _ => Err(error(format!("internal: operator {op:?} on {a:?} and {b:?}"))),
    }
}

/// `a op b` on two elements of an array of `dtype` (the result is an element of the result dtype:
/// `dtype`, or bool for comparisons).
pub(crate) fn elem_binop(op: BinOp, dtype: DType, a: f64, b: f64) -> Result<f64> {
    if dtype.is_float() {
        return Ok(float_op(op, dtype, a, b).to_f64());
    }
    scalar_binop(op, Scalar::of(dtype, a), Scalar::of(dtype, b)).map(Scalar::to_f64)
}

fn compare(op: BinOp, ord: Option<std::cmp::Ordering>) -> bool {
    use std::cmp::Ordering::*;
    match op {
        BinOp::Eq => ord == Some(Equal),
        BinOp::Ne => ord != Some(Equal),
        BinOp::Lt => ord == Some(Less),
        BinOp::Le => matches!(ord, Some(Less | Equal)),
        BinOp::Gt => ord == Some(Greater),
        BinOp::Ge => matches!(ord, Some(Greater | Equal)),
        _ => false,
    }
}

/// Float arithmetic: exact in `f64`, then rounded to `dtype`. For +, -, *, / and one rounding this
/// equals the GPU's f32/f16/bf16 instruction (f64 has more than twice the bits plus two).
fn float_op(op: BinOp, dtype: DType, x: f64, y: f64) -> Scalar {
    let v = match op {
        BinOp::Add => x + y,
        BinOp::Sub => x - y,
        BinOp::Mul => x * y,
        BinOp::Div => x / y,
        BinOp::Eq | BinOp::Ne | BinOp::Lt | BinOp::Le | BinOp::Gt | BinOp::Ge => {
            return Scalar::Bool(compare(op, x.partial_cmp(&y)));
        }
        // typeck allows no other operator on floats.
        _ => f64::NAN,
    };
    Scalar::Float(round(dtype, v), dtype)
}

fn bool_op(op: BinOp, x: bool, y: bool) -> Result<Scalar> {
    Ok(Scalar::Bool(match op {
        BinOp::And | BinOp::BitAnd => x && y,
        BinOp::Or | BinOp::BitOr => x || y,
        BinOp::BitXor => x ^ y,
        _ => compare(op, Some(x.cmp(&y))),
    }))
}

/// Integer arithmetic, wrapping to the dtype's width. Shifts by the width or more give 0 (or the
/// sign for arithmetic right shifts), as PTX `shl`/`shr` clamp the amount.
fn int_op(op: BinOp, d: DType, x: i64, y: i64) -> Result<Scalar> {
    let unsigned = d.is_unsigned();
    let bits = u64::from(d.bits());
    let v = match op {
        BinOp::Add => x.wrapping_add(y),
        BinOp::Sub => x.wrapping_sub(y),
        BinOp::Mul => x.wrapping_mul(y),
        BinOp::Div | BinOp::Rem if y == 0 => return Err(error("integer division by zero")),
        BinOp::Div if unsigned => ((x as u64) / (y as u64)) as i64,
        BinOp::Rem if unsigned => ((x as u64) % (y as u64)) as i64,
        BinOp::Div => x.wrapping_div(y),
        BinOp::Rem => x.wrapping_rem(y),
        BinOp::Shl if (y as u64) >= bits => 0,
        BinOp::Shl => x.wrapping_shl(y as u32),
        BinOp::Shr if (y as u64) >= bits => {
            if unsigned || x >= 0 {
                0
            } else {
                -1
            }
        }
        BinOp::Shr if unsigned => ((x as u64) >> y) as i64,
        BinOp::Shr => x >> y,
        BinOp::BitAnd => x & y,
        BinOp::BitOr => x | y,
        BinOp::BitXor => x ^ y,
        BinOp::And | BinOp::Or => return Err(error(format!("internal: `{op:?}` on integers"))),
        BinOp::Eq | BinOp::Ne | BinOp::Lt | BinOp::Le | BinOp::Gt | BinOp::Ge => {
            let ord = if d == DType::U64 { (x as u64).cmp(&(y as u64)) } else { x.cmp(&y) };
            return Ok(Scalar::Bool(compare(op, Some(ord))));
        }
    };
    Ok(Scalar::Int(d.wrap(v), d))
}

/// `-x` and `!x`.
pub(crate) fn scalar_unop(op: UnOp, x: Scalar) -> Scalar {
    match (op, x) {
        (UnOp::Neg, Scalar::Float(v, d)) => Scalar::Float(-v, d),
        (UnOp::Neg, Scalar::Int(v, d)) => Scalar::Int(d.wrap(v.wrapping_neg()), d),
        (UnOp::Not, Scalar::Int(v, d)) => Scalar::Int(d.wrap(!v), d),
        (_, Scalar::Bool(b)) => Scalar::Bool(!b),
        (UnOp::Not, f) => f,
    }
}

/// An elementwise math function of one value of `dtype`. Float functions run in f32 (the GPU
/// computes f16/bf16 math in f32 too) with Rust's correctly rounded or nearly so `f32` functions,
/// where the GPU uses its approximate `ex2.approx`, `rsqrt.approx`...: results may differ by a few
/// ulp of f32, which rounding to a narrower dtype mostly hides.
pub(crate) fn math(func: MathFn, dtype: DType, v: f64) -> f64 {
    if !dtype.is_float() {
        // typeck allows only `abs` on (signed) integers.
        return dtype.wrap((v as i64).wrapping_abs()) as f64;
    }
    let x = v as f32;
    let r = match func {
        MathFn::Exp2 => x.exp2(),
        MathFn::Exp => x.exp(),
        MathFn::Log2 => x.log2(),
        MathFn::Log => x.ln(),
        MathFn::Sqrt => x.sqrt(),
        MathFn::Rsqrt => 1.0 / x.sqrt(),
        MathFn::Tanh => x.tanh(),
        MathFn::Abs => x.abs(),
        MathFn::Recip => 1.0 / x,
        MathFn::Floor => x.floor(),
        MathFn::Ceil => x.ceil(),
        MathFn::Round => x.round_ties_even(),
        MathFn::Trunc => x.trunc(),
    };
    round(dtype, r as f64)
}

/// `fma(a, b, c)` of values of `dtype` (f32, f16 or bf16, all exact in f32): `a * b + c` rounded
/// once to f32 (`f32::mul_add`, as `fma.rn.f32`), then to the dtype (the PTX converts f16 and bf16
/// results from f32), so the GPU's value bit for bit. Rounding through f64 instead would differ: in
/// f32 where the f64 sum lands on a tie the exact one is beside, in bf16 where the f32 sum does.
pub(crate) fn fma(dtype: DType, a: f64, b: f64, c: f64) -> f64 {
    round(dtype, (a as f32).mul_add(b as f32, c as f32) as f64)
}

/// `max(a, b)` / `min(a, b)` of two values of `dtype`; a NaN loses to a number, as PTX `max.f32`.
pub(crate) fn math2(func: MathFn2, dtype: DType, a: f64, b: f64) -> f64 {
    let take_a = match (dtype, func) {
        (DType::U64, MathFn2::Max) => (a as u64) >= (b as u64),
        (DType::U64, MathFn2::Min) => (a as u64) <= (b as u64),
        (_, MathFn2::Max) => a >= b || b.is_nan(),
        (_, MathFn2::Min) => a <= b || b.is_nan(),
    };
    if take_a {
        a
    } else {
        b
    }
}

/// Reduces `x` along `axis`, left to right, rounding to the dtype after each step.
pub(crate) fn reduce(op: ReduceOp, x: &Array, axis: usize) -> Result<Array> {
    let outer: usize = x.shape[..axis].iter().product();
    let len = x.shape[axis];
    let inner: usize = x.shape[axis + 1..].iter().product();
    let mut shape = x.shape.clone();
    shape.remove(axis);
    let mut data = Vec::with_capacity(outer * inner);
    for o in 0..outer {
        for i in 0..inner {
            let at = |k: usize| x.data[(o * len + k) * inner + i];
            let mut acc = at(0);
            for k in 1..len {
                acc = match op {
                    ReduceOp::Sum => elem_binop(BinOp::Add, x.dtype, acc, at(k))?,
                    ReduceOp::Max => math2(MathFn2::Max, x.dtype, acc, at(k)),
                    ReduceOp::Min => math2(MathFn2::Min, x.dtype, acc, at(k)),
                };
            }
            data.push(acc);
        }
    }
    Ok(Array { dtype: x.dtype, shape, data })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn integers_wrap_and_shift_like_ptx() {
        let i32s = |v| Scalar::Int(v, DType::I32);
        assert_eq!(scalar_binop(BinOp::Add, i32s(i32::MAX as i64), i32s(1)).unwrap(), i32s(i32::MIN as i64));
        assert_eq!(scalar_binop(BinOp::Shl, i32s(1), i32s(40)).unwrap(), i32s(0));
        assert_eq!(scalar_binop(BinOp::Shr, i32s(-8), i32s(40)).unwrap(), i32s(-1));
        assert_eq!(scalar_binop(BinOp::Div, i32s(-7), i32s(2)).unwrap(), i32s(-3));
        assert!(scalar_binop(BinOp::Rem, i32s(1), i32s(0)).is_err());
        let u8s = |v| Scalar::Int(v, DType::U8);
        assert_eq!(scalar_binop(BinOp::Sub, u8s(0), u8s(1)).unwrap(), u8s(255));
    }

    #[test]
    fn rounding_per_dtype() {
        assert_eq!(round(DType::Bf16, 1.0 + 2f64.powi(-8)), 1.0);
        assert_eq!(round(DType::F8E4M3, 1e6), 448.0);
        assert_eq!(round(DType::I8, 200.0), -56.0);
        assert_eq!(round(DType::Tf32, 1.0 + 2f64.powi(-11)), 1.0 + 2f64.powi(-10));
        assert_eq!(tf32_truncate(1.0 + 2f64.powi(-11) + 2f64.powi(-12)), 1.0);
        assert_eq!(convert(DType::F32, DType::I32, -2.7), -2.0);
        assert_eq!(convert(DType::F32, DType::U8, 300.0), 255.0);
        assert_eq!(convert(DType::F32, DType::I32, f64::NAN), 0.0);
        assert_eq!(convert(DType::I8, DType::U32, -1.0), 4294967295.0);
    }

    #[test]
    fn max_prefers_numbers_over_nan() {
        assert_eq!(math2(MathFn2::Max, DType::F32, f64::NAN, 1.0), 1.0);
        assert_eq!(math2(MathFn2::Min, DType::F32, 2.0, f64::NAN), 2.0);
    }

    #[test]
    fn fma_rounds_once_to_f32_then_to_the_dtype() {
        let p = |e| 2f64.powi(e);
        // (1 + 2^-12)^2 = 1 + 2^-11 + 2^-24: fused, the 2^-24 survives the subtraction.
        assert_eq!(fma(DType::F32, 1.0 + p(-12), 1.0 + p(-12), -1.0), p(-11) + p(-24));
        // An f32 tie plus 2^-80 rounds up; rounded to f64 first it would be the tie, then even.
        assert_eq!(fma(DType::F32, 1.0 + p(-12), 1.0 + p(-12), p(-80)), 1.0 + p(-11) + p(-23));
        // 3 * (1 + 2^-7) - 2^-30 is a bf16 tie in f32 (ties to even: up); from f64 it rounds down.
        assert_eq!(fma(DType::Bf16, 3.0, 1.0 + p(-7), -p(-30)), 3.0 + p(-5));
    }
}
