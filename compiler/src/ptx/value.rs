//! What an expression is while its PTX is written: registers and static facts.

use crate::typeck::{AccTy, RegsTy, SmemTy};
use crate::types::DType;

/// A value during code generation.
#[derive(Clone, Debug)]
pub enum Val {
    Unit,
    /// A scalar in one register.
    Scalar {
        reg: String,
        dtype: DType,
    },
    /// A compile-time integer that has no register yet (literals and consts).
    Const(i64),
    Tuple(Vec<Val>),
    /// A global parameter: its index and the `.b64` register with its address; for another
    /// device's copy (`remote(..)`), the `.b32` register of that device's rank.
    Gmem {
        param: usize,
        addr: String,
        peer: Option<String>,
    },
    /// `a.tile([i, k], [..])`: block indices (`.b32` registers), and the peer's rank as `Gmem`'s.
    Tile {
        param: usize,
        addr: String,
        index: Vec<String>,
        peer: Option<String>,
    },
    /// A shared-memory view: the `.b32` shared address of the buffer's first element (of the view's
    /// slab), plus what typeck knows.
    Smem {
        addr: String,
        ty: SmemTy,
    },
    /// A barrier: the `.b32` shared address of its mbarrier, and which allocation and element it is
    /// (for the per-thread parity bits).
    Barrier {
        addr: String,
        alloc: usize,
        index: Option<String>,
    },
    /// An accumulator: this thread's registers in the WGMMA layout, and its type.
    Acc {
        regs: Vec<String>,
        ty: AccTy,
    },
    /// A register array: this thread's elements, in the order `layout::elements` gives.
    Regs {
        regs: Vec<String>,
        ty: RegsTy,
    },
}

impl Val {
    /// The registers a scalar, a register array or a tuple of them holds (none for constants and
    /// for handles such as arrays, views and barriers).
    pub fn registers(&self) -> Vec<&str> {
        match self {
            Val::Scalar { reg, .. } => vec![reg],
            Val::Regs { regs, .. } => regs.iter().map(String::as_str).collect(),
            Val::Tuple(parts) => parts.iter().flat_map(Val::registers).collect(),
            _ => Vec::new(),
        }
    }
}
