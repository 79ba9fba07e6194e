//! Register-array operations: elementwise arithmetic (with scalars broadcast), comparisons, math,
//! casts, `splat`, `iota`, reductions and broadcasts. Each result element is rounded to its dtype.

use std::rc::Rc;

use tessel_ir::ops::{BinOp, UnOp};
use tessel_ir::types::DType;

use super::exec::Warpgroup;
use super::memory::for_each_index;
use super::numeric::{convert, elem_binop, error, fma, from_bits, math, math2, reduce, round, to_bits};
use super::value::{Array, Scalar, Value};
use crate::Result;
use tessel_ir::program::{Expr, ExprKind, Spread};

/// `-x` on an array.
pub(crate) fn unary(op: UnOp, x: &Array) -> Array {
    let f = |v: f64| match (op, x.dtype) {
        (UnOp::Neg, d) if d.is_float() => -v,
        (UnOp::Neg, d) => d.wrap(-(v as i64)) as f64,
        (UnOp::Not, DType::Bool) => 1.0 - v,
        (UnOp::Not, d) => d.wrap(!(v as i64)) as f64,
    };
    Array { dtype: x.dtype, shape: x.shape.clone(), data: x.data.iter().map(|&v| f(v)).collect() }
}

fn is_comparison(op: BinOp) -> bool {
    matches!(op, BinOp::Eq | BinOp::Ne | BinOp::Lt | BinOp::Le | BinOp::Gt | BinOp::Ge)
}

/// A scalar as an element of an array of `dtype` (an untyped literal or a scalar of that dtype).
fn element(s: Scalar, dtype: DType) -> f64 {
    convert(s.dtype(), dtype, s.to_f64())
}

/// Two operands of which at least one is an array: the arrays' dtype and both sides elementwise
/// (a scalar side repeated).
fn sides(l: Value, r: Value) -> Result<(DType, Vec<usize>, Operand, Operand)> {
    let (dtype, shape) = match (&l, &r) {
        (Value::Regs(a), _) | (_, Value::Regs(a)) => (a.dtype, a.shape.clone()),
        _ => return Err(error("internal: an elementwise operation without a register array")),
    };
    Ok((dtype, shape, Operand::of(l, dtype)?, Operand::of(r, dtype)?))
}

enum Operand {
    Array(Rc<Array>),
    Splat(f64),
}

impl Operand {
    /// A register array as it is, a scalar as an element of an array of `dtype`.
    fn of(v: Value, dtype: DType) -> Result<Operand> {
        match v {
            Value::Regs(a) => Ok(Operand::Array(a)),
            Value::Scalar(s) => Ok(Operand::Splat(element(s, dtype))),
            _ => Err(error("internal: an elementwise operand that is neither an array nor a scalar")),
        }
    }

    fn get(&self, i: usize) -> f64 {
        match self {
            Operand::Array(a) => a.data[i],
            Operand::Splat(v) => *v,
        }
    }
}

/// `l op r` with at least one array side.
pub(crate) fn binary(op: BinOp, l: Value, r: Value) -> Result<Value> {
    let (dtype, shape, a, b) = sides(l, r)?;
    let n = shape.iter().product();
    let data = (0..n).map(|i| elem_binop(op, dtype, a.get(i), b.get(i))).collect::<Result<_>>()?;
    let dtype = if is_comparison(op) { DType::Bool } else { dtype };
    Ok(Value::Regs(Rc::new(Array { dtype, shape, data })))
}

impl Warpgroup<'_> {
    /// Evaluates a register-array expression.
    pub(crate) fn eval_regs(&mut self, e: &Expr) -> Result<Value> {
        let array = match &e.kind {
            ExprKind::Splat { value, dtype, shape } => {
                let s = self.eval_scalar(value)?;
                Array::filled(*dtype, shape.clone(), element(s, *dtype))
            }
            ExprKind::Iota { dtype, shape, axis } => {
                let mut data = Vec::with_capacity(shape.iter().product());
                for_each_index(shape, |i| data.push(round(*dtype, i[*axis] as f64)));
                Array { dtype: *dtype, shape: shape.clone(), data }
            }
            ExprKind::Math { func, arg } => match self.eval(arg)? {
                Value::Scalar(s) => {
                    return Ok(Value::Scalar(Scalar::of(s.dtype(), math(*func, s.dtype(), s.to_f64()))))
                }
                v => map(&*v.regs()?, |x, d| math(*func, d, x)),
            },
            ExprKind::Math2 { func, lhs, rhs } => {
                let (l, r) = (self.eval(lhs)?, self.eval(rhs)?);
                if let (Value::Scalar(a), Value::Scalar(b)) = (&l, &r) {
                    let d = a.dtype();
                    return Ok(Value::Scalar(Scalar::of(d, math2(*func, d, a.to_f64(), element(*b, d)))));
                }
                let (dtype, shape, a, b) = sides(l, r)?;
                let data = (0..shape.iter().product()).map(|i| math2(*func, dtype, a.get(i), b.get(i))).collect();
                Array { dtype, shape, data }
            }
            ExprKind::Fma(operands) => {
                let [a, b, c] = &**operands;
                let values = [self.eval(a)?, self.eval(b)?, self.eval(c)?];
                let Some((dtype, shape)) = values.iter().find_map(|v| match v {
                    Value::Regs(r) => Some((r.dtype, r.shape.clone())),
                    _ => None,
                }) else {
                    let [a, b, c] = values.map(|v| v.scalar());
                    let (a, b, c) = (a?, b?, c?);
                    let d = a.dtype();
                    return Ok(Value::Scalar(Scalar::of(d, fma(d, a.to_f64(), element(b, d), element(c, d)))));
                };
                let [a, b, c] = values.map(|v| Operand::of(v, dtype));
                let (a, b, c) = (a?, b?, c?);
                let data = (0..shape.iter().product()).map(|i| fma(dtype, a.get(i), b.get(i), c.get(i))).collect();
                Array { dtype, shape, data }
            }
            ExprKind::Cast { value, dtype } => match self.eval(value)? {
                Value::Scalar(s) => return Ok(Value::Scalar(s.cast(*dtype))),
                v => {
                    let x = v.regs()?;
                    let data = x.data.iter().map(|&v| convert(x.dtype, *dtype, v)).collect();
                    Array { dtype: *dtype, shape: x.shape.clone(), data }
                }
            },
            ExprKind::Bitcast { value, dtype } => match self.eval(value)? {
                // Integers of one width: wrapping keeps the bits (and 64-bit scalars exact).
                Value::Scalar(s @ Scalar::Int(..)) if dtype.is_int() => return Ok(Value::Scalar(s.cast(*dtype))),
                Value::Scalar(s) => {
                    return Ok(Value::Scalar(Scalar::of(*dtype, from_bits(*dtype, to_bits(s.dtype(), s.to_f64())))));
                }
                v => {
                    let x = v.regs()?;
                    let data = x.data.iter().map(|&v| from_bits(*dtype, to_bits(x.dtype, v))).collect();
                    Array { dtype: *dtype, shape: x.shape.clone(), data }
                }
            },
            ExprKind::Reduce { value, op, axis } => {
                let reduced = reduce(*op, &*self.eval(value)?.regs()?, *axis)?;
                // A 1-D array reduces to a scalar.
                if let ([], [v]) = (&reduced.shape[..], &reduced.data[..]) {
                    return Ok(Value::Scalar(Scalar::of(reduced.dtype, *v)));
                }
                reduced
            }
            ExprKind::Broadcast { value, shape, spread } => broadcast(&*self.eval(value)?.regs()?, shape, *spread)?,
            // Layouts are metadata here: the values pass unchanged.
            ExprKind::ToLayout(value) | ExprKind::LayoutCast(value) => return self.eval(value),
            _ => return Err(error("internal: an expression the interpreter does not know")),
        };
        Ok(Value::Regs(Rc::new(array)))
    }
}

fn map(x: &Array, f: impl Fn(f64, DType) -> f64) -> Array {
    Array { dtype: x.dtype, shape: x.shape.clone(), data: x.data.iter().map(|&v| f(v, x.dtype)).collect() }
}

/// `v.broadcast(shape, layout)`: a row or column vector of a WGMMA array repeated along the other
/// axis, or a splat's value everywhere.
fn broadcast(v: &Array, shape: &[usize], spread: Spread) -> Result<Array> {
    let mut data = Vec::with_capacity(shape.iter().product());
    match (spread, shape) {
        (Spread::Rows, [m, n]) if v.data.len() == *m => {
            for r in 0..*m {
                data.extend(std::iter::repeat_n(v.data[r], *n));
            }
        }
        (Spread::Cols, [m, n]) if v.data.len() == *n => {
            for _ in 0..*m {
                data.extend_from_slice(&v.data);
            }
        }
        (Spread::Splat, _) if !v.data.is_empty() => return Ok(Array::filled(v.dtype, shape.to_vec(), v.data[0])),
        _ => return Err(error("internal: a broadcast whose shapes do not fit")),
    }
    Ok(Array { dtype: v.dtype, shape: shape.to_vec(), data })
}
