//! The rules a tiled TMA tensor map must follow, checked before the driver is called.
//!
//! `cuTensorMapEncodeTiled` answers every violation with the same `CUDA_ERROR_INVALID_VALUE`, so
//! each rule of its documentation (Driver API "Tensor Map Object Management") is checked here, as
//! a pure function of the layout, with a message that names the tensor, the axis and the limit.
//! Axes in messages are the tensor's (outermost first), as the user wrote the shape.

use crate::error::{Error, Result};
use crate::tensor::element_count;
pub use tessel_ir::types::Swizzle;

/// Largest box extent along any axis (Driver API `cuTensorMapEncodeTiled`: `boxDim[i] <= 256`).
pub const MAX_BOX: u32 = 256;
/// Required alignment of the base address and of every stride, in bytes.
pub const TMA_ALIGN: u64 = 16;
/// Tiled tensor maps have 1 to 5 dimensions.
pub const MAX_RANK: usize = 5;
/// Extents are at most 2^32 elements.
pub const MAX_EXTENT: u64 = 1 << 32;
/// Strides are below 2^40 bytes.
pub const MAX_STRIDE: u64 = 1 << 40;

/// A tiled tensor map's geometry, in the driver's order: index 0 is the innermost (contiguous)
/// dimension.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct TensorMapLayout {
    /// Device address of element (0, .., 0).
    pub base: u64,
    /// Extent of each dimension, in elements, innermost first.
    pub dims: Vec<u64>,
    /// Byte stride of dimensions 1.. (dimension 0 is contiguous): `dims.len() - 1` entries.
    pub strides: Vec<u64>,
    /// Box (tile) extent of each dimension, in elements, innermost first.
    pub box_dims: Vec<u32>,
    /// Size of one element in bytes.
    pub elem_bytes: u64,
    /// The shared-memory swizzle.
    pub swizzle: Swizzle,
}

impl TensorMapLayout {
    /// The layout of a dense row-major tensor of `shape` at `base`, moved in boxes of
    /// `box_shape`; both shapes are outermost first, as the user writes them.
    pub fn row_major(
        tensor: &'static str,
        base: u64,
        shape: &[usize],
        elem_bytes: usize,
        box_shape: &[u32],
        swizzle: Swizzle,
    ) -> Result<Self> {
        if box_shape.len() != shape.len() {
            return Err(Error::TensorMap {
                tensor,
                reason: format!(
                    "the box {box_shape:?} has rank {}, but the tensor's shape {shape:?} has \
                     rank {}",
                    box_shape.len(),
                    shape.len()
                ),
                source: None,
            });
        }
        let too_large = || Error::ShapeTooLarge { shape: shape.to_vec() };
        let dims: Vec<u64> = shape.iter().rev().map(|&d| d as u64).collect();
        let mut strides = Vec::with_capacity(dims.len().saturating_sub(1));
        let mut row_bytes = elem_bytes as u64;
        for &d in dims.iter().take(dims.len().saturating_sub(1)) {
            row_bytes = row_bytes.checked_mul(d).ok_or_else(too_large)?;
            strides.push(row_bytes);
        }
        element_count(shape)?;
        Ok(TensorMapLayout {
            base,
            dims,
            strides,
            box_dims: box_shape.iter().rev().copied().collect(),
            elem_bytes: elem_bytes as u64,
            swizzle,
        })
    }

    /// Checks every rule of `cuTensorMapEncodeTiled` this runtime relies on; `tensor` names the
    /// tensor in messages.
    pub fn validate(&self, tensor: &'static str) -> Result<()> {
        self.check_rank(tensor)?;
        self.check_base(tensor)?;
        self.check_dims(tensor)?;
        self.check_strides(tensor)?;
        self.check_box(tensor)?;
        self.check_inner_box_bytes(tensor)?;
        self.check_swizzle_span(tensor)
    }

    /// The tensor's axis (outermost first) of driver dimension `i` (innermost first).
    fn axis(&self, i: usize) -> usize {
        self.dims.len() - 1 - i
    }

    fn error(tensor: &'static str, reason: String) -> Error {
        Error::TensorMap { tensor, reason, source: None }
    }

    /// Rank: tiled maps have 1 to 5 dimensions, with one box extent per dimension and one stride
    /// per dimension but the innermost.
    fn check_rank(&self, tensor: &'static str) -> Result<()> {
        let rank = self.dims.len();
        if rank == 0 || rank > MAX_RANK {
            return Err(Self::error(
                tensor,
                format!("TMA handles tensors of rank 1 to {MAX_RANK}, but this one has rank {rank}"),
            ));
        }
        if self.box_dims.len() != rank || self.strides.len() + 1 != rank {
            return Err(Error::Internal(format!(
                "tensor map layout for `{tensor}` has {rank} dims, {} box dims and {} strides",
                self.box_dims.len(),
                self.strides.len()
            )));
        }
        Ok(())
    }

    /// Base: the global address is 16-byte aligned.
    fn check_base(&self, tensor: &'static str) -> Result<()> {
        if !self.base.is_multiple_of(TMA_ALIGN) {
            return Err(Error::Misaligned {
                tensor,
                what: "the base address".into(),
                value: self.base,
                required: TMA_ALIGN,
            });
        }
        Ok(())
    }

    /// Extents: every dimension has 1 to 2^32 elements.
    fn check_dims(&self, tensor: &'static str) -> Result<()> {
        for (i, &d) in self.dims.iter().enumerate() {
            if d == 0 || d > MAX_EXTENT {
                let axis = self.axis(i);
                return Err(Self::error(
                    tensor,
                    format!("axis {axis} has extent {d}, but TMA needs 1 to 2^32 elements"),
                ));
            }
        }
        Ok(())
    }

    /// Strides: every stride is a multiple of 16 bytes and below 2^40 bytes. For a row-major
    /// tensor, the stride of axis r-2 is one row, so rows must be whole 16-byte units.
    fn check_strides(&self, tensor: &'static str) -> Result<()> {
        for (i, &stride) in self.strides.iter().enumerate() {
            let axis = self.axis(i + 1);
            if stride % TMA_ALIGN != 0 {
                return Err(Error::Misaligned {
                    tensor,
                    what: format!("the stride of axis {axis}"),
                    value: stride,
                    required: TMA_ALIGN,
                });
            }
            if stride >= MAX_STRIDE {
                return Err(Self::error(
                    tensor,
                    format!("the stride of axis {axis} is {stride} bytes; TMA needs < 2^40"),
                ));
            }
        }
        Ok(())
    }

    /// Box: every box extent is 1 to 256 elements.
    fn check_box(&self, tensor: &'static str) -> Result<()> {
        for (i, &b) in self.box_dims.iter().enumerate() {
            if b == 0 || b > MAX_BOX {
                let axis = self.axis(i);
                return Err(Self::error(
                    tensor,
                    format!(
                        "the box {:?} has extent {b} along axis {axis}, but TMA boxes are 1 to \
                         {MAX_BOX} elements along each axis",
                        self.box_outermost_first()
                    ),
                ));
            }
        }
        Ok(())
    }

    /// Inner box: the box's innermost extent is a whole number of 16-byte units.
    fn check_inner_box_bytes(&self, tensor: &'static str) -> Result<()> {
        let bytes = self.inner_box_bytes();
        if !bytes.is_multiple_of(TMA_ALIGN) {
            return Err(Self::error(
                tensor,
                format!(
                    "the box's innermost extent is {} elements of {} bytes = {bytes} bytes, but \
                     TMA needs a multiple of {TMA_ALIGN} bytes",
                    self.box_dims[0], self.elem_bytes
                ),
            ));
        }
        Ok(())
    }

    /// Swizzle span: with a swizzle, the box's innermost extent fits in the swizzle span
    /// (32, 64 or 128 bytes); wider tiles are split into several boxes along the inner axis.
    fn check_swizzle_span(&self, tensor: &'static str) -> Result<()> {
        let Some(span) = self.swizzle.span_bytes() else {
            return Ok(());
        };
        let bytes = self.inner_box_bytes();
        if bytes > span {
            return Err(Self::error(
                tensor,
                format!(
                    "the box's innermost extent is {} elements = {bytes} bytes, wider than the \
                     {span} bytes of the {}; at most {} elements fit, so split the tile along \
                     axis {}",
                    self.box_dims[0],
                    self.swizzle,
                    span / self.elem_bytes.max(1),
                    self.axis(0)
                ),
            ));
        }
        Ok(())
    }

    fn inner_box_bytes(&self) -> u64 {
        u64::from(self.box_dims[0]) * self.elem_bytes
    }

    fn box_outermost_first(&self) -> Vec<u32> {
        self.box_dims.iter().rev().copied().collect()
    }
}
