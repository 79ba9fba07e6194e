//! Runtime dimensions: upper-case names in a kernel's global shapes (`M`, `K`), bound from the
//! tensors passed at launch and checked for consistency before anything reaches the GPU.

use crate::error::{Error, Result};

/// Where a runtime dimension was read from.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct Binding {
    dim: &'static str,
    tensor: &'static str,
    axis: usize,
    value: usize,
}

/// The runtime dimensions of one launch.
///
/// ```
/// # use tessel_runtime::Dims;
/// let mut dims = Dims::new();
/// dims.bind("K", "a", 1, 512)?;
/// let err = dims.bind("K", "b", 0, 256).unwrap_err();
/// assert_eq!(
///     err.to_string(),
///     "runtime dimension K is 512 from `a` (axis 1) but 256 from `b` (axis 0)"
/// );
/// assert_eq!(dims.get("K")?, 512);
/// # Ok::<(), tessel_runtime::Error>(())
/// ```
#[derive(Clone, Debug, Default)]
pub struct Dims {
    // A kernel has a handful of dimensions: a vector keeps binding order for messages.
    bindings: Vec<Binding>,
}

impl Dims {
    /// No dimensions bound yet.
    pub fn new() -> Self {
        Self::default()
    }

    /// Binds `dim` to `value`, read from axis `axis` of `tensor`. If `dim` is already bound to a
    /// different value, fails with [`Error::DimMismatch`] naming both sources. Returns the value.
    pub fn bind(&mut self, dim: &'static str, tensor: &'static str, axis: usize, value: usize) -> Result<usize> {
        match self.bindings.iter().find(|b| b.dim == dim) {
            Some(first) if first.value != value => Err(Error::DimMismatch {
                dim,
                first: (first.tensor, first.axis, first.value),
                second: (tensor, axis, value),
            }),
            Some(_) => Ok(value),
            None => {
                self.bindings.push(Binding { dim, tensor, axis, value });
                Ok(value)
            }
        }
    }

    /// The value of a bound dimension. An unbound name is a bug in the generated code.
    pub fn get(&self, dim: &str) -> Result<usize> {
        self.bindings
            .iter()
            .find(|b| b.dim == dim)
            .map(|b| b.value)
            .ok_or_else(|| Error::Internal(format!("runtime dimension {dim} was never bound")))
    }
}

/// Checks that the tensor passed for parameter `tensor` has the rank its type declares.
pub fn check_rank(tensor: &'static str, shape: &[usize], expected: usize) -> Result<()> {
    if shape.len() == expected {
        return Ok(());
    }
    Err(Error::ShapeRank { tensor, expected, shape: shape.to_vec() })
}

/// Checks that a runtime dimension (or expression) `dim` with value `value` is a multiple of
/// `divisor`; `why` says what in the kernel needs it.
pub fn check_divisible(dim: &'static str, value: usize, divisor: usize, why: &'static str) -> Result<()> {
    if divisor != 0 && value.is_multiple_of(divisor) {
        return Ok(());
    }
    Err(Error::Divisibility { dim, value, divisor, why })
}

/// The largest extent of a `ragged(..)` dimension: the last tile overhangs it, and its
/// coordinates, like tile counts (`cdiv`), must still fit the kernel's 32-bit signed arithmetic.
/// 2^16 of room covers any TMA box (at most 256) and any tile count's divisor up to 65536.
pub const RAGGED_MAX: usize = i32::MAX as usize - 65535;

/// Checks that a ragged runtime dimension leaves its last tile room in 32-bit indices
/// ([`RAGGED_MAX`]).
pub fn check_ragged(dim: &'static str, value: usize) -> Result<()> {
    if value <= RAGGED_MAX {
        return Ok(());
    }
    Err(Error::Launch(format!(
        "ragged runtime dimension {dim} = {value} is larger than {RAGGED_MAX}: the tiles past its end must \
         fit the kernel's 32-bit indices"
    )))
}

/// Whether a launch has nothing to do: one of its `ragged(..)` runtime dimensions (`ragged`, their
/// values) is 0 and every array the kernel writes (`written`, their shapes) is empty, as an
/// output with that dimension is. Such a launch returns `Ok` without running a program, as cuBLAS
/// and PyTorch do for an empty batch. A kernel that a ragged dimension of 0 leaves an output to
/// write (a sum over that dimension into a non-empty array) is launched as usual, with every
/// check that applies.
pub fn launches_nothing(ragged: &[usize], written: &[&[usize]]) -> bool {
    ragged.contains(&0) && written.iter().all(|shape| shape.contains(&0))
}

/// Converts a runtime quantity (a grid extent, a dimension passed as a `u32` kernel parameter)
/// to `u32`, failing with [`Error::Launch`] if it does not fit.
pub fn to_u32(what: &'static str, value: usize) -> Result<u32> {
    u32::try_from(value).map_err(|_| Error::Launch(format!("{what} = {value} does not fit in 32 bits")))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ragged_dimensions_leave_room_for_a_tile() {
        assert_eq!(check_ragged("M", RAGGED_MAX), Ok(()));
        let err = check_ragged("M", RAGGED_MAX + 1).unwrap_err();
        assert!(err.to_string().contains("ragged runtime dimension M = 2147418113"), "{err}");
    }

    #[test]
    fn an_empty_ragged_dimension_with_empty_outputs_launches_nothing() {
        // M = 0 of a ragged M: the [M, N] output is empty.
        assert!(launches_nothing(&[0, 128], &[&[0, 128]]));
        // The output does not have M (a sum over it): the launch runs.
        assert!(!launches_nothing(&[0], &[&[0, 64], &[64]]));
        // No ragged dimension is 0: an empty output alone does not skip the launch's checks.
        assert!(!launches_nothing(&[64], &[&[0, 64]]));
        assert!(!launches_nothing(&[], &[&[0]]));
    }

    #[test]
    fn binding_the_same_value_twice_is_fine() {
        let mut dims = Dims::new();
        assert_eq!(dims.bind("M", "a", 0, 128), Ok(128));
        assert_eq!(dims.bind("M", "c", 0, 128), Ok(128));
        assert_eq!(dims.bind("N", "c", 1, 64), Ok(64));
        assert_eq!((dims.get("M"), dims.get("N")), (Ok(128), Ok(64)));
    }

    #[test]
    fn a_mismatch_names_both_tensors_and_axes() {
        let mut dims = Dims::new();
        dims.bind("K", "a", 1, 512).unwrap();
        let err = dims.bind("K", "b", 0, 256).unwrap_err();
        assert_eq!(err, Error::DimMismatch { dim: "K", first: ("a", 1, 512), second: ("b", 0, 256) });
        assert_eq!(err.to_string(), "runtime dimension K is 512 from `a` (axis 1) but 256 from `b` (axis 0)");
        // The first binding stands.
        assert_eq!(dims.get("K"), Ok(512));
    }

    #[test]
    fn an_unbound_dimension_is_internal() {
        let err = Dims::new().get("Q").unwrap_err();
        assert!(matches!(err, Error::Internal(_)));
        assert!(err.to_string().starts_with("internal tessel error"));
    }

    #[test]
    fn rank_divisibility_and_u32() {
        let err = check_rank("a", &[4, 4, 4], 2).unwrap_err();
        assert_eq!(err.to_string(), "`a` must have rank 2, but its shape is [4, 4, 4] (rank 3)");
        assert!(check_rank("a", &[4, 4], 2).is_ok());

        let why = "the loop `for k in 0..K / 64` steps over K in tiles of 64";
        let err = check_divisible("K", 100, 64, why).unwrap_err();
        assert_eq!(err.to_string(), format!("runtime dimension K = 100 must be a multiple of 64: {why}"));
        assert!(check_divisible("K", 128, 64, why).is_ok());
        assert!(check_divisible("K", 128, 0, why).is_err());

        assert_eq!(to_u32("M / 64", 7), Ok(7));
        assert!(to_u32("M / 64", usize::MAX).is_err());
    }
}
