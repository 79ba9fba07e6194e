//! The types `typeck` gives to values, with their Rust-side spellings for diagnostics.

use crate::types::DType;
use crate::types::{Layout, Swizzle};
use std::fmt;

/// The type of a value in a kernel.
#[derive(Clone, Debug, PartialEq)]
pub enum Ty {
    /// Statements and effects.
    Unit,
    /// The value of something already reported; uses of it report nothing more.
    Error,
    Scalar(DType),
    Tuple(Vec<Ty>),
    /// A kernel parameter in global memory.
    Gmem(GmemTy),
    /// A block of a global array: `a.tile([i, k])`, with its shape when written out.
    Tile(GmemTy, Option<Vec<i64>>),
    Smem(SmemTy),
    Barrier(BarrierTy),
    Acc(AccTy),
    /// `Acc::from_regs(x)`: an accumulator value waiting for `run_state`.
    PreinitAcc(RegsTy),
    Regs(RegsTy),
}

/// One dimension of a global array.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum DimVal {
    Static(i64),
    /// A runtime dimension bound at launch, by name.
    Runtime(String),
}

#[derive(Clone, Debug, PartialEq)]
pub struct GmemTy {
    /// Index of the kernel parameter.
    pub param: usize,
    pub name: String,
    pub dtype: DType,
    pub shape: Vec<DimVal>,
    pub mutable: bool,
    /// The parameter is `#[peers]`: one copy per device of the group.
    pub peers: bool,
    /// This is another device's copy (`remote(param, rank)`), not this device's.
    pub remote: bool,
}

/// A shared-memory buffer or a view of one.
#[derive(Clone, Debug, PartialEq)]
pub struct SmemTy {
    /// Index into the allocations (`Program::allocs`).
    pub alloc: usize,
    pub dtype: DType,
    /// The shape in stored order (the last dimension is contiguous).
    pub stored: Vec<i64>,
    /// Whether the view swaps the last two stored dimensions (`.t()`, `Transposed`).
    pub transposed: bool,
    pub swizzle: Swizzle,
    /// Element offset of this view from the buffer's start, when statically known.
    pub sliced: bool,
}

impl SmemTy {
    /// The logical shape of the view.
    pub fn shape(&self) -> Vec<i64> {
        let mut s = self.stored.clone();
        let n = s.len();
        if self.transposed && n >= 2 {
            s.swap(n - 1, n - 2);
        }
        s
    }

    /// The bytes the view's elements take as stored (packed for sub-byte types, as TMA and bulk
    /// copies move them).
    pub fn bytes(&self) -> i64 {
        self.stored.iter().product::<i64>() * i64::from(self.dtype.bits()) / 8
    }
}

#[derive(Clone, Debug, PartialEq)]
pub struct BarrierTy {
    pub alloc: usize,
    pub arrivals: u32,
    /// `Some(n)` for an array of barriers not yet indexed with `.at(i)`.
    pub array: Option<u32>,
}

#[derive(Clone, Debug, PartialEq)]
pub struct AccTy {
    pub dtype: DType,
    pub shape: Vec<i64>,
    /// A `.slice([..])` view: loads are fine, stores are not (B3).
    pub sliced: bool,
}

#[derive(Clone, Debug, PartialEq)]
pub struct RegsTy {
    pub dtype: DType,
    pub shape: Vec<i64>,
    pub layout: Layout,
}

impl Ty {
    pub fn is_error(&self) -> bool {
        matches!(self, Ty::Error)
    }

    /// The dtype of a scalar or of a register array's elements.
    pub fn elem_dtype(&self) -> Option<DType> {
        match self {
            Ty::Scalar(d) => Some(*d),
            Ty::Regs(r) => Some(r.dtype),
            _ => None,
        }
    }

    /// Whether this value may leave the `run_scoped` that allocated its memory.
    pub fn is_plain_value(&self) -> bool {
        match self {
            Ty::Unit | Ty::Error | Ty::Scalar(_) | Ty::Regs(_) => true,
            Ty::Tuple(ts) => ts.iter().all(Ty::is_plain_value),
            Ty::Gmem(_) | Ty::Tile(..) | Ty::Smem(_) | Ty::Barrier(_) | Ty::Acc(_) | Ty::PreinitAcc(_) => false,
        }
    }
}

impl fmt::Display for Ty {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Ty::Unit => f.write_str("()"),
            Ty::Error => f.write_str("{error}"),
            Ty::Scalar(d) => write!(f, "{d}"),
            Ty::Tuple(ts) => {
                let parts: Vec<String> = ts.iter().map(Ty::to_string).collect();
                write!(f, "({})", parts.join(", "))
            }
            Ty::Gmem(g) if g.remote => write!(f, "a peer's {}<{}, {}>", gmem_kind(g), g.dtype, gmem_shape(g)),
            Ty::Gmem(g) => write!(f, "{}<{}, {}>", gmem_kind(g), g.dtype, gmem_shape(g)),
            Ty::Tile(g, _) if g.remote => {
                write!(f, "a tile of a peer's {}<{}, {}>", gmem_kind(g), g.dtype, gmem_shape(g))
            }
            Ty::Tile(g, _) => write!(f, "a tile of {}<{}, {}>", gmem_kind(g), g.dtype, gmem_shape(g)),
            Ty::Smem(s) => {
                write!(f, "Smem<{}, {}", s.dtype, dims(&s.shape()))?;
                if s.swizzle.is_some() {
                    write!(f, ", Swizzle{}", s.swizzle.bytes())?;
                }
                if s.transposed {
                    f.write_str(", Transposed")?;
                }
                f.write_str(">")
            }
            Ty::Barrier(b) => match b.array {
                Some(n) => write!(f, "Barrier<{}, {n}>", b.arrivals),
                None if b.arrivals == 1 => f.write_str("Barrier"),
                None => write!(f, "Barrier<{}>", b.arrivals),
            },
            Ty::Acc(a) => write!(f, "Acc<{}, {}>", a.dtype, dims(&a.shape)),
            Ty::PreinitAcc(r) => write!(f, "Acc::from_regs({})", Ty::Regs(r.clone())),
            Ty::Regs(r) => write!(f, "Regs<{}, {}, {}>", r.dtype, dims(&r.shape), r.layout),
        }
    }
}

fn gmem_kind(g: &GmemTy) -> &'static str {
    if g.mutable {
        "GmemMut"
    } else {
        "Gmem"
    }
}

/// Dimensions as a type writes them, as generic arguments: `64, 128`.
fn dims(shape: &[i64]) -> String {
    let dims: Vec<String> = shape.iter().map(i64::to_string).collect();
    dims.join(", ")
}

fn gmem_shape(g: &GmemTy) -> String {
    let dims: Vec<String> = g
        .shape
        .iter()
        .map(|d| match d {
            DimVal::Static(v) => v.to_string(),
            DimVal::Runtime(n) => n.clone(),
        })
        .collect();
    dims.join(", ")
}

/// The shape of the register array that a global tile of shape `tile` loads into or stores from:
/// the tile's shape without its leading extents of 1, so that a 1 x 64 x D block of an H x S x D
/// array is a 64 x D array (which `Layout::Wgmma` can hold).
pub fn tile_registers(tile: &[i64]) -> &[i64] {
    let lead = tile.iter().take_while(|&&d| d == 1).count().min(tile.len().saturating_sub(1));
    &tile[lead..]
}
