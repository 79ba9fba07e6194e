//! The kernel's memory plan, as `typeck` makes it: every allocation of every `run_scoped` and the
//! TMA tensor maps a launch encodes.

use crate::types::{DType, Swizzle};

/// A tensor map over a global parameter, as the launch wrapper encodes it.
#[derive(Clone, Debug, PartialEq)]
pub struct TensorMapUse {
    /// Index of the `Gmem`/`GmemMut` parameter.
    pub param: usize,
    /// The box in stored order (outermost first); a swizzled box is at most one swizzle span wide,
    /// and wider buffers take several copies.
    pub box_shape: Vec<i64>,
    pub swizzle: Swizzle,
    pub dtype: DType,
    /// A map per device of the group over each rank's copy of a `#[peers]` parameter, for the
    /// copies of `remote(..)` tiles (`AbiParam::TensorMap`); else one map over this device's array.
    pub peers: bool,
}

/// One allocation of a `run_scoped`.
#[derive(Clone, Debug, PartialEq)]
pub struct Alloc {
    pub name: String,
    pub kind: AllocKind,
    /// Byte offset in the program's shared memory (0 for accumulators).
    pub offset: u64,
    pub bytes: u64,
}

#[derive(Clone, Debug, PartialEq)]
pub enum AllocKind {
    Smem { dtype: DType, stored: Vec<i64>, swizzle: Swizzle, transposed: bool },
    Barrier { arrivals: u32, count: u32 },
    Acc { dtype: DType, shape: Vec<i64> },
}
