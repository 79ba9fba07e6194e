//! What the check knows about a value at one point of a warpgroup's code: an integer or a bool
//! known at compile time (consts, literals, `warpgroup_id()` and what is computed from them), or
//! the shared buffer, barrier or accumulator an expression names, with the part of it that its
//! views (`.at(i)`, `.slice(..)`, `.t()`) select. Anything else is `Unknown`.

use tessel_ir::memory::{Alloc, AllocKind};
use tessel_ir::ops::{BinOp, UnOp};
use tessel_ir::program::{LitValue, Literal};
use tessel_ir::ty::Ty;
use tessel_ir::types::DType;

#[derive(Clone, Debug, PartialEq)]
pub enum Value {
    /// A run-time value, a register array, a global array: nothing the check follows.
    Unknown,
    /// An integer, wrapped to its dtype as the kernel's arithmetic wraps it.
    Int(i64),
    Bool(bool),
    Smem(Place),
    Barrier(BarrierRef),
    /// An array of barriers (`Barrier<n, count>`) before `.at(i)`: its allocation.
    Barriers(usize),
    Acc(AccPlace),
    Tuple(Vec<Value>),
}

impl Value {
    /// The value on two paths that meet: what both agree on.
    pub fn join(self, other: Value) -> Value {
        if self == other {
            self
        } else {
            match (self, other) {
                (Value::Tuple(a), Value::Tuple(b)) if a.len() == b.len() => {
                    Value::Tuple(a.into_iter().zip(b).map(|(a, b)| a.join(b)).collect())
                }
                _ => Value::Unknown,
            }
        }
    }
}

/// A shared buffer or a part of one: its allocation and the views taken of it, in order.
#[derive(Clone, Debug, PartialEq)]
pub struct Place {
    pub alloc: usize,
    pub views: Vec<View>,
}

#[derive(Clone, Debug, PartialEq)]
pub enum View {
    /// `.at(i)`: `None` where `i` is a run-time value.
    At(Option<i64>),
    /// `.slice(..)`: (start, length) per dimension, in the view's dimension order.
    Slice(Vec<(usize, usize)>),
    /// `.t()`, or a transpose that swaps dimensions.
    Transpose,
}

/// Whether two places share memory, as far as the check can tell without run-time values.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Overlap {
    Yes,
    No,
    Maybe,
}

/// Whether two windows ((start, length) per dimension) are apart in some dimension.
fn apart(a: &[(usize, usize)], b: &[(usize, usize)]) -> bool {
    a.iter().zip(b).any(|(&(s, l), &(t, m))| s.saturating_add(l) <= t || t.saturating_add(m) <= s)
}

impl Place {
    pub fn whole(alloc: usize) -> Place {
        Place { alloc, views: Vec::new() }
    }

    /// `Yes` only where both places are known to share memory: the same allocation, views that
    /// agree step by step (equal constant indices, equal windows) until one of them ends, where
    /// it holds the other. A run-time index, or views that select in different ways, is `Maybe`.
    pub fn overlap(&self, other: &Place) -> Overlap {
        if self.alloc != other.alloc {
            return Overlap::No;
        }
        let steps = self.views.len().min(other.views.len());
        for (i, (a, b)) in self.views.iter().zip(&other.views).enumerate() {
            let last = i + 1 == steps && self.views.len() == other.views.len();
            match (a, b) {
                (View::At(Some(x)), View::At(Some(y))) if x != y => return Overlap::No,
                (View::At(Some(_)), View::At(Some(_))) | (View::Transpose, View::Transpose) => {}
                (View::Slice(x), View::Slice(y)) if x == y => {}
                (View::Slice(x), View::Slice(y)) if apart(x, y) => return Overlap::No,
                // Windows that overlap without being equal: the same memory if nothing follows.
                (View::Slice(_), View::Slice(_)) if last => {}
                _ => return Overlap::Maybe,
            }
        }
        Overlap::Yes
    }

    /// The place as the kernel writes it: `a_s.at(0)`.
    pub fn name(&self, allocs: &[Alloc]) -> String {
        let mut out = alloc_name(allocs, self.alloc);
        for v in &self.views {
            match v {
                View::At(Some(i)) => out.push_str(&format!(".at({i})")),
                View::At(None) => out.push_str(".at(..)"),
                View::Slice(w) => out.push_str(&format!(".slice({})", window(w))),
                View::Transpose => out.push_str(".t()"),
            }
        }
        out
    }
}

fn window(w: &[(usize, usize)]) -> String {
    let dims: Vec<String> = w.iter().map(|(s, l)| format!("{s}..{}", s + l)).collect();
    format!("[{}]", dims.join(", "))
}

fn alloc_name(allocs: &[Alloc], alloc: usize) -> String {
    allocs.get(alloc).map_or_else(|| format!("allocation {alloc}"), |a| a.name.clone())
}

/// One barrier: of its allocation, element `index` (0 for a single barrier), `None` where the
/// index is a run-time value.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct BarrierRef {
    pub alloc: usize,
    pub index: Option<i64>,
    /// Whether the allocation is an array, indexed with `.at(i)`.
    pub array: bool,
}

impl BarrierRef {
    /// Whether the two may be the same barrier.
    pub fn may_be(&self, other: &BarrierRef) -> bool {
        self.alloc == other.alloc && (self.index.is_none() || other.index.is_none() || self.index == other.index)
    }

    /// The barrier as the kernel writes it: `bar`, `full.at(1)`.
    pub fn name(&self, allocs: &[Alloc]) -> String {
        let base = alloc_name(allocs, self.alloc);
        match (self.array, self.index) {
            (false, _) => base,
            (true, Some(i)) => format!("{base}.at({i})"),
            (true, None) => format!("{base}.at(..)"),
        }
    }

    /// How the barrier is declared: `Barrier<2>`, `Barrier<1, 4>`.
    pub fn declared(&self, allocs: &[Alloc]) -> Option<(u32, String)> {
        match allocs.get(self.alloc).map(|a| &a.kind) {
            Some(AllocKind::Barrier { arrivals, count }) if self.array => {
                Some((*arrivals, format!("Barrier<{arrivals}, {count}>")))
            }
            Some(AllocKind::Barrier { arrivals, .. }) => Some((*arrivals, format!("Barrier<{arrivals}>"))),
            _ => None,
        }
    }
}

/// An accumulator, or a window of one (`acc.slice([.., 0..128])`).
#[derive(Clone, Debug, PartialEq)]
pub struct AccPlace {
    pub acc: AccId,
    /// The name it is bound to where it is made, for messages.
    pub name: String,
    pub window: Option<Vec<(usize, usize)>>,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum AccId {
    /// Allocated by a `run_scoped`: an entry of `Program::allocs`.
    Alloc(usize),
    /// Made by `run_state`: the slot of its parameter.
    State(usize),
}

impl AccPlace {
    /// Whether two accumulators share registers: the same accumulator, in windows that meet.
    pub fn overlaps(&self, other: &AccPlace) -> bool {
        self.acc == other.acc
            && match (&self.window, &other.window) {
                (Some(a), Some(b)) => !apart(a, b),
                _ => true,
            }
    }

    pub fn describe(&self) -> String {
        match &self.window {
            None => self.name.clone(),
            Some(w) => format!("{}.slice({})", self.name, window(w)),
        }
    }
}

/// The value of a literal.
pub fn literal(l: &Literal) -> Value {
    match l.value {
        LitValue::Int(v) if l.dtype.is_int() => Value::Int(l.dtype.wrap(v)),
        LitValue::Bool(b) => Value::Bool(b),
        LitValue::Int(_) | LitValue::Float(_) => Value::Unknown,
    }
}

/// The integer dtype of an expression's type, if it has one.
fn int_dtype(ty: &Ty) -> Option<DType> {
    match ty {
        Ty::Scalar(d) if d.is_int() => Some(*d),
        _ => None,
    }
}

pub fn unary(op: UnOp, v: Value, ty: &Ty) -> Value {
    match (op, v) {
        (UnOp::Not, Value::Bool(b)) => Value::Bool(!b),
        (UnOp::Neg, Value::Int(v)) => match (int_dtype(ty), v.checked_neg()) {
            (Some(d), Some(n)) => Value::Int(d.wrap(n)),
            _ => Value::Unknown,
        },
        _ => Value::Unknown,
    }
}

/// `a op b` on known operands, as the kernel computes it (wrapped to the result's dtype).
pub fn binary(op: BinOp, a: Value, b: Value, ty: &Ty) -> Value {
    use BinOp::*;
    match (op, a, b) {
        (And, Value::Bool(false), _) | (And, _, Value::Bool(false)) => Value::Bool(false),
        (Or, Value::Bool(true), _) | (Or, _, Value::Bool(true)) => Value::Bool(true),
        (And | Or, Value::Bool(x), Value::Bool(y)) => Value::Bool(if op == And { x && y } else { x || y }),
        (Eq, Value::Bool(x), Value::Bool(y)) => Value::Bool(x == y),
        (Ne, Value::Bool(x), Value::Bool(y)) => Value::Bool(x != y),
        (Eq | Ne | Lt | Le | Gt | Ge, Value::Int(x), Value::Int(y)) => Value::Bool(match op {
            Eq => x == y,
            Ne => x != y,
            Lt => x < y,
            Le => x <= y,
            Gt => x > y,
            _ => x >= y,
        }),
        (_, Value::Int(x), Value::Int(y)) => match (int_dtype(ty), op.eval_i64(x, y)) {
            (Some(d), Some(v)) => Value::Int(d.wrap(v)),
            _ => Value::Unknown,
        },
        _ => Value::Unknown,
    }
}

/// `v as dtype` on scalars.
pub fn cast(v: Value, dtype: DType) -> Value {
    match v {
        Value::Int(x) if dtype.is_int() => Value::Int(dtype.wrap(x)),
        _ => Value::Unknown,
    }
}

/// `base.at(index)`.
pub fn at(base: Value, index: &Value) -> Value {
    let index = match index {
        Value::Int(i) => Some(*i),
        _ => None,
    };
    match base {
        Value::Smem(mut p) => {
            p.views.push(View::At(index));
            Value::Smem(p)
        }
        Value::Barriers(alloc) => Value::Barrier(BarrierRef { alloc, index, array: true }),
        _ => Value::Unknown,
    }
}

/// `base.slice(..)` with the window's starts and lengths.
pub fn slice(base: Value, starts: &[usize], lens: &[usize]) -> Value {
    let w: Vec<(usize, usize)> = starts.iter().copied().zip(lens.iter().copied()).collect();
    match base {
        Value::Smem(mut p) => {
            p.views.push(View::Slice(w));
            Value::Smem(p)
        }
        // A window of a window is not written (typeck allows slicing an accumulator once).
        Value::Acc(a) if a.window.is_none() => Value::Acc(AccPlace { window: Some(w), ..a }),
        _ => Value::Unknown,
    }
}

/// `base.t()`, or a transpose (`swap`: whether it swaps anything).
pub fn transpose(base: Value, swap: bool) -> Value {
    match base {
        Value::Smem(mut p) if swap => {
            p.views.push(View::Transpose);
            Value::Smem(p)
        }
        other => other,
    }
}
