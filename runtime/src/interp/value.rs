//! The values one warpgroup computes with.
//!
//! Register arrays and accumulators are private to a warpgroup (its host thread), so they are `Rc`
//! and `RefCell`; shared memory, barriers and global memory are reached through references into
//! the program's state (`memory.rs`, `sync.rs`).

use std::cell::RefCell;
use std::rc::Rc;

use tessel_ir::types::DType;

use super::memory::{SmemView, TileRef};
use super::numeric::error;
use crate::Result;

/// A scalar: integers as `i64` (`u64` as its bits), floats as `f64` holding a value of the dtype.
#[derive(Clone, Copy, Debug, PartialEq)]
pub(crate) enum Scalar {
    Int(i64, DType),
    Float(f64, DType),
    Bool(bool),
}

/// A register array: dense, row-major values of `dtype`. Its register layout is metadata that
/// `typeck` checked; it does not change the values.
#[derive(Clone, Debug, PartialEq)]
pub(crate) struct Array {
    pub dtype: DType,
    pub shape: Vec<usize>,
    pub data: Vec<f64>,
}

impl Array {
    /// An array of `shape` with every element `v`.
    pub(crate) fn filled(dtype: DType, shape: Vec<usize>, v: f64) -> Array {
        let n = shape.iter().product();
        Array { dtype, shape, data: vec![v; n] }
    }

    /// The 2-D window `lens` at `starts` (within the array: typeck checked the bounds).
    pub(crate) fn window(&self, starts: &[usize], lens: &[usize]) -> Array {
        let width = self.shape[1];
        let mut data = Vec::with_capacity(lens[0] * lens[1]);
        for r in starts[0]..starts[0] + lens[0] {
            data.extend_from_slice(&self.data[r * width + starts[1]..r * width + starts[1] + lens[1]]);
        }
        Array { dtype: self.dtype, shape: lens.to_vec(), data }
    }
}

/// An accumulator, or a static window of one (`acc.slice([.., 0..64])`).
#[derive(Clone, Debug)]
pub(crate) struct AccRef {
    pub cell: Rc<RefCell<Array>>,
    /// Its allocation (`None` for a `run_state` accumulator), for messages.
    pub alloc: Option<usize>,
    pub row0: usize,
    pub col0: usize,
    pub rows: usize,
    pub cols: usize,
}

impl AccRef {
    /// A whole, fresh accumulator holding `init`.
    pub(crate) fn new(init: Array, alloc: Option<usize>) -> AccRef {
        let (rows, cols) = (init.shape[0], init.shape[1]);
        AccRef { cell: Rc::new(RefCell::new(init)), alloc, row0: 0, col0: 0, rows, cols }
    }

    /// Whether the two windows share an element of one accumulator.
    pub(crate) fn overlaps(&self, other: &AccRef) -> bool {
        Rc::ptr_eq(&self.cell, &other.cell)
            && self.row0 < other.row0 + other.rows
            && other.row0 < self.row0 + self.rows
            && self.col0 < other.col0 + other.cols
            && other.col0 < self.col0 + self.cols
    }

    /// The window's values, as a register array.
    pub(crate) fn load(&self) -> Array {
        self.cell.borrow().window(&[self.row0, self.col0], &[self.rows, self.cols])
    }

    /// Overwrites the window with `value` (of the window's shape and the accumulator's dtype).
    pub(crate) fn store(&self, value: &Array) {
        let mut acc = self.cell.borrow_mut();
        let width = acc.shape[1];
        for r in 0..self.rows {
            let at = (self.row0 + r) * width + self.col0;
            acc.data[at..at + self.cols].copy_from_slice(&value.data[r * self.cols..(r + 1) * self.cols]);
        }
    }
}

/// One barrier of a barrier allocation, or the whole array before `.at(i)`.
#[derive(Clone, Copy, Debug)]
pub(crate) struct BarrierRef {
    /// Index into `Program::allocs`.
    pub alloc: usize,
    pub index: usize,
    /// `Some(count)` for an array not yet indexed.
    pub array: Option<usize>,
}

#[derive(Clone, Debug)]
pub(crate) enum Value {
    Unit,
    Scalar(Scalar),
    Tuple(Vec<Value>),
    /// A global parameter, by index.
    Gmem(usize),
    Tile(TileRef),
    Smem(SmemView),
    Barrier(BarrierRef),
    Acc(AccRef),
    Regs(Rc<Array>),
}

impl Value {
    /// A short description for internal errors.
    fn kind(&self) -> &'static str {
        match self {
            Value::Unit => "()",
            Value::Scalar(_) => "a scalar",
            Value::Tuple(_) => "a tuple",
            Value::Gmem(_) => "a global array",
            Value::Tile(_) => "a global tile",
            Value::Smem(_) => "a shared-memory view",
            Value::Barrier(_) => "a barrier",
            Value::Acc(_) => "an accumulator",
            Value::Regs(_) => "a register array",
        }
    }

    fn unexpected<T>(&self, want: &str) -> Result<T> {
        Err(error(format!("internal: expected {want}, got {}", self.kind())))
    }

    pub(crate) fn scalar(self) -> Result<Scalar> {
        match self {
            Value::Scalar(s) => Ok(s),
            other => other.unexpected("a scalar"),
        }
    }

    pub(crate) fn regs(self) -> Result<Rc<Array>> {
        match self {
            Value::Regs(r) => Ok(r),
            other => other.unexpected("a register array"),
        }
    }

    pub(crate) fn smem(self) -> Result<SmemView> {
        match self {
            Value::Smem(s) => Ok(s),
            other => other.unexpected("a shared-memory view"),
        }
    }

    pub(crate) fn acc(self) -> Result<AccRef> {
        match self {
            Value::Acc(a) => Ok(a),
            other => other.unexpected("an accumulator"),
        }
    }

    pub(crate) fn tile(self) -> Result<TileRef> {
        match self {
            Value::Tile(t) => Ok(t),
            other => other.unexpected("a global tile"),
        }
    }

    pub(crate) fn barrier(self) -> Result<BarrierRef> {
        match self {
            Value::Barrier(b) if b.array.is_none() => Ok(b),
            other => other.unexpected("a single barrier"),
        }
    }

    pub(crate) fn bool(self) -> Result<bool> {
        match self {
            Value::Scalar(Scalar::Bool(b)) => Ok(b),
            other => other.unexpected("a bool"),
        }
    }
}
