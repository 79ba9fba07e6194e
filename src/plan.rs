//! What a generated `check_args` computes before a launch, and the checks it is made of.
//!
//! Every function here runs before any CUDA call, so the checks behave the same with or without a
//! GPU, and `launch` and `interpret` fail alike on the same bad arguments.

use tessel_ir::ops::BinOp;
use tessel_runtime::{check_rank, Dims, Error, LaunchConfig, Result};

use crate::signature::Dim;

/// A launch whose arguments passed `check_args`: its configuration and the values of the
/// kernel's runtime dimensions, in `SIGNATURE.runtime_dims` order (as the kernel receives them).
/// A launch with nothing to do (an empty batch: a ragged dimension of 0) has a grid of no
/// programs ([`LaunchPlan::launches_nothing`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct LaunchPlan<const DIMS: usize> {
    /// Grid (from the kernel's `grid = (..)`), block (128 threads per warpgroup) and dynamic
    /// shared memory (the kernel's buffers and barriers, scratch for layout changes, and 1024 bytes
    /// to align the base).
    pub config: LaunchConfig,
    /// The runtime dimensions, as the kernel's 32-bit parameters.
    pub dims: [i32; DIMS],
}

impl<const DIMS: usize> LaunchPlan<DIMS> {
    /// Checks the configuration against sm_90's limits and the grid against the cluster shape.
    pub fn new(
        entry: &str,
        grid: [u32; 3],
        block: [u32; 3],
        dynamic_smem: u32,
        cluster: [u32; 3],
        dims: [i32; DIMS],
    ) -> Result<Self> {
        let config = LaunchConfig { grid, block, dynamic_smem };
        config.validate(entry)?;
        check_clusters(entry, grid, cluster)?;
        Ok(LaunchPlan { config, dims })
    }

    /// The plan of a launch with nothing to do (`tessel_runtime::launches_nothing`: a ragged
    /// dimension of 0 and every written array empty): a grid of no programs. `launch` and
    /// `interpret` return `Ok` at once for it.
    pub fn nothing(block: [u32; 3], dynamic_smem: u32, dims: [i32; DIMS]) -> Self {
        LaunchPlan { config: LaunchConfig { grid: [0, 0, 0], block, dynamic_smem }, dims }
    }

    /// Whether the launch runs no program (see [`LaunchPlan::nothing`]); every plan `new`
    /// returns has at least one.
    pub fn launches_nothing(&self) -> bool {
        self.config.grid.contains(&0)
    }
}

/// A launch forms whole clusters (`.reqnctapercluster`): each grid extent must be a multiple of
/// the cluster's (CUDA Programming Guide, "Thread Block Clusters").
fn check_clusters(entry: &str, grid: [u32; 3], cluster: [u32; 3]) -> Result<()> {
    if grid.iter().zip(&cluster).all(|(&g, &c)| c != 0 && g % c == 0) {
        return Ok(());
    }
    Err(Error::Launch(format!(
        "`{entry}`: the grid {grid:?} is not a whole number of clusters of {cluster:?}; make each \
         grid extent a multiple of the cluster's"
    )))
}

/// Checks the shape of the tensor passed for parameter `tensor` against its declared shape
/// `spec`: the rank, each static dimension, and each runtime dimension against its other
/// appearances (binding it in `dims` on first sight).
pub fn bind_shape(dims: &mut Dims, tensor: &'static str, shape: &[usize], spec: &[Dim]) -> Result<()> {
    check_rank(tensor, shape, spec.len())?;
    let mut static_mismatch = false;
    for (axis, (&extent, dim)) in shape.iter().zip(spec).enumerate() {
        match *dim {
            Dim::Runtime(name) => {
                dims.bind(name, tensor, axis, extent)?;
            }
            Dim::Static(expected) => static_mismatch |= usize::try_from(expected) != Ok(extent),
        }
    }
    if !static_mismatch {
        return Ok(());
    }
    let expected = shape
        .iter()
        .zip(spec)
        .map(|(&extent, dim)| match *dim {
            Dim::Runtime(_) => extent,
            Dim::Static(v) => usize::try_from(v).unwrap_or(0),
        })
        .collect();
    Err(Error::ShapeMismatch { tensor, expected, got: shape.to_vec() })
}

/// A runtime dimension as the kernel's `.s32` parameter: the kernel indexes with 32-bit signed
/// arithmetic, so larger extents are refused rather than wrapped.
pub fn dim_i32(dim: &'static str, value: usize) -> Result<i32> {
    i32::try_from(value).map_err(|_| {
        Error::Launch(format!(
            "runtime dimension {dim} = {value} is larger than {}, the most a kernel indexes",
            i32::MAX
        ))
    })
}

/// One extent of the grid: `text` is the attribute's expression for axis `axis`, and `value`
/// its value at this launch.
pub fn grid_extent(entry: &str, axis: usize, text: &str, value: GridValue) -> Result<u32> {
    let name = ["x", "y", "z"].get(axis).copied().unwrap_or("?");
    let fail = |what: String| Error::Launch(format!("`{entry}`: the grid's {name} extent `{text}` {what}"));
    match value.get() {
        None => Err(fail("overflows or divides by zero at these dimensions".into())),
        Some(v) if v < 1 => {
            Err(fail(format!("is {v}, but must be at least 1 (is a runtime dimension smaller than a tile?)")))
        }
        Some(v) => u32::try_from(v).map_err(|_| fail(format!("is {v}, more than a grid can have"))),
    }
}

/// An integer of a grid expression: an `i64` whose arithmetic is checked, `None` once anything
/// overflowed or divided by zero. Generated code evaluates the attribute's grid in it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct GridValue(Option<i64>);

impl GridValue {
    /// The value of a failed computation.
    pub const OVERFLOW: GridValue = GridValue(None);

    /// A literal, a const or a signed parameter.
    pub const fn new(value: i64) -> Self {
        GridValue(Some(value))
    }

    /// A runtime dimension.
    pub fn from_usize(value: usize) -> Self {
        GridValue(i64::try_from(value).ok())
    }

    /// A `u64` parameter.
    pub fn from_u64(value: u64) -> Self {
        GridValue(i64::try_from(value).ok())
    }

    /// The value, or `None` after an overflow or a division by zero.
    pub fn get(self) -> Option<i64> {
        self.0
    }

    fn zip(self, rhs: GridValue, f: impl FnOnce(i64, i64) -> Option<i64>) -> GridValue {
        GridValue(self.0.zip(rhs.0).and_then(|(a, b)| f(a, b)))
    }
}

/// Implements a binary operator of `GridValue` with the checked integer arithmetic that constant
/// folding and the interpreter's grid use too ([`BinOp::eval_i64`]).
macro_rules! grid_ops {
    ($($trait:ident $method:ident $op:ident;)*) => {$(
        impl std::ops::$trait for GridValue {
            type Output = GridValue;
            fn $method(self, rhs: GridValue) -> GridValue {
                self.zip(rhs, |a, b| BinOp::$op.eval_i64(a, b))
            }
        }
    )*};
}

grid_ops! {
    Add add Add;
    Sub sub Sub;
    Mul mul Mul;
    Div div Div;
    Rem rem Rem;
    Shl shl Shl;
    Shr shr Shr;
    BitAnd bitand BitAnd;
    BitOr bitor BitOr;
    BitXor bitxor BitXor;
}

impl std::ops::Neg for GridValue {
    type Output = GridValue;
    fn neg(self) -> GridValue {
        GridValue(self.0.and_then(i64::checked_neg))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn grid_arithmetic_is_checked() {
        let m = GridValue::from_usize(4096);
        assert_eq!((m / GridValue::new(64)).get(), Some(64));
        assert_eq!(((m + GridValue::new(63)) / GridValue::new(64) * GridValue::new(2)).get(), Some(128));
        assert_eq!((m / GridValue::new(0)).get(), None);
        assert_eq!((GridValue::new(i64::MAX) + GridValue::new(1)).get(), None);
        assert_eq!((GridValue::new(3) << GridValue::new(2)).get(), Some(12));
        assert_eq!((GridValue::new(1) << GridValue::new(63)).get(), None);
        assert_eq!((GridValue::new(i64::MAX / 2) << GridValue::new(2)).get(), None);
        assert_eq!((-GridValue::new(i64::MIN)).get(), None);
        assert_eq!(GridValue::from_u64(u64::MAX).get(), None);
    }

    #[test]
    fn grid_extents_name_the_axis_and_expression() {
        let err = grid_extent("matmul", 1, "N / 64", GridValue::new(0)).unwrap_err();
        assert_eq!(
            err.to_string(),
            "kernel launch failed: `matmul`: the grid's y extent `N / 64` is 0, but must be at least 1 (is a \
             runtime dimension smaller than a tile?)"
        );
        assert!(grid_extent("k", 0, "M", GridValue::OVERFLOW).unwrap_err().to_string().contains("overflows"));
        assert!(grid_extent("k", 0, "M", GridValue::new(1 << 40)).is_err());
        assert_eq!(grid_extent("k", 2, "M", GridValue::new(7)), Ok(7));
    }

    #[test]
    fn shapes_bind_runtime_and_check_static_dimensions() {
        let mut dims = Dims::new();
        let spec = [Dim::Runtime("M"), Dim::Static(64)];
        bind_shape(&mut dims, "a", &[128, 64], &spec).unwrap();
        assert_eq!(dims.get("M"), Ok(128));
        let err = bind_shape(&mut dims, "b", &[128, 32], &spec).unwrap_err();
        assert_eq!(err, Error::ShapeMismatch { tensor: "b", expected: vec![128, 64], got: vec![128, 32] });
        let err = bind_shape(&mut dims, "c", &[256, 64], &spec).unwrap_err();
        assert!(matches!(err, Error::DimMismatch { dim: "M", .. }));
        let err = bind_shape(&mut dims, "d", &[128], &spec).unwrap_err();
        assert!(matches!(err, Error::ShapeRank { tensor: "d", expected: 2, .. }));
    }

    #[test]
    fn plans_check_limits_clusters_and_dimension_sizes() {
        let plan = LaunchPlan::new("k", [4, 2, 1], [256, 1, 1], 1024, [2, 1, 1], [7]).unwrap();
        assert_eq!(plan.config.grid, [4, 2, 1]);
        assert_eq!(plan.dims, [7]);
        let err = LaunchPlan::new("k", [3, 2, 1], [128, 1, 1], 1024, [2, 1, 1], []).unwrap_err();
        assert!(err.to_string().contains("whole number of clusters"), "{err}");
        assert!(LaunchPlan::new("k", [1, 70_000, 1], [128, 1, 1], 0, [1, 1, 1], []).is_err());
        assert!(!plan.launches_nothing());
        let empty = LaunchPlan::nothing([128, 1, 1], 1024, [0, 64]);
        assert!(empty.launches_nothing());
        assert_eq!(empty.dims, [0, 64]);
        assert_eq!(dim_i32("K", 1 << 20), Ok(1 << 20));
        assert!(dim_i32("K", 1 << 31).is_err());
    }
}
