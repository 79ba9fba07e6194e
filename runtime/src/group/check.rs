//! Argument checks of the group operations, on shapes and counts only, so that every mismatch is
//! found before a driver or NCCL call (a collective whose ranks disagree on sizes hangs inside
//! NCCL instead of failing) and so that they are tested without a GPU.
//!
//! Each function states its rule first.

use crate::error::{Error, Result};

/// A group has at least one device, and no device twice (one context per rank, and NCCL's
/// `ncclCommInitAll` rejects duplicates).
pub(super) fn ordinals(ordinals: &[usize]) -> Result<()> {
    if ordinals.is_empty() {
        return Err(Error::InvalidArgument {
            argument: "ordinals",
            reason: "a device group needs at least one device".into(),
        });
    }
    for (rank, ordinal) in ordinals.iter().enumerate() {
        if let Some(first) = ordinals[..rank].iter().position(|o| o == ordinal) {
            return Err(Error::InvalidArgument {
                argument: "ordinals",
                reason: format!(
                    "device {ordinal} is listed twice (ranks {first} and {rank}); each rank needs its own GPU"
                ),
            });
        }
    }
    Ok(())
}

/// A per-rank argument has exactly one value per rank.
pub(super) fn rank_count(argument: &'static str, ranks: usize, got: usize) -> Result<()> {
    if got == ranks {
        return Ok(());
    }
    Err(Error::RankCount { argument, expected: ranks, got })
}

/// Every rank's shape equals `expected` (a per-rank argument of a symmetric operation).
pub(super) fn rank_shapes<'a>(
    argument: &'static str,
    expected: &[usize],
    shapes: impl IntoIterator<Item = &'a [usize]>,
) -> Result<()> {
    for (rank, shape) in shapes.into_iter().enumerate() {
        if shape != expected {
            return Err(Error::RankShape { argument, rank, expected: expected.to_vec(), got: shape.to_vec() });
        }
    }
    Ok(())
}

/// One value per rank, all of rank 0's shape; returns that shape.
pub(super) fn uniform_shapes<'a>(argument: &'static str, ranks: usize, shapes: &[&'a [usize]]) -> Result<&'a [usize]> {
    rank_count(argument, ranks, shapes.len())?;
    let first = shapes[0];
    rank_shapes(argument, first, shapes.iter().copied())?;
    Ok(first)
}

/// The shape an all-gather of `ranks` tensors of `shape` produces: the ranks' tensors one after
/// another along axis 0 (`[ranks * d0, d1, ..]`); a scalar gathers into `[ranks]`.
pub(super) fn gathered_shape(shape: &[usize], ranks: usize) -> Result<Vec<usize>> {
    let too_large = || Error::ShapeTooLarge { shape: shape.to_vec() };
    match shape.split_first() {
        None => Ok(vec![ranks]),
        Some((&rows, rest)) => {
            let rows = rows.checked_mul(ranks).ok_or_else(too_large)?;
            Ok(std::iter::once(rows).chain(rest.iter().copied()).collect())
        }
    }
}

/// The shape each rank receives from a reduce-scatter of tensors of `shape` over `ranks` ranks:
/// axis 0 split into `ranks` equal parts (rank r gets part r), so it must divide evenly; the inverse
/// of [`gathered_shape`].
pub(super) fn scattered_shape(argument: &'static str, shape: &[usize], ranks: usize) -> Result<Vec<usize>> {
    let Some((&rows, rest)) = shape.split_first() else {
        return Err(Error::InvalidArgument {
            argument,
            reason: format!("a reduce-scatter splits axis 0 between the {ranks} ranks, but the tensor is a scalar"),
        });
    };
    if rows % ranks != 0 {
        return Err(Error::InvalidArgument {
            argument,
            reason: format!(
                "a reduce-scatter splits axis 0 between the {ranks} ranks, but shape {shape:?} has {rows} rows, \
                 not a multiple of {ranks}"
            ),
        });
    }
    Ok(std::iter::once(rows / ranks).chain(rest.iter().copied()).collect())
}

/// `bytes` rounded up to a multiple of `granularity` (a power of two), at least one granule so that
/// an empty tensor still has an address; `None` on overflow.
pub(super) fn round_up(bytes: usize, granularity: usize) -> Option<usize> {
    let granules = bytes.max(1).div_ceil(granularity);
    granules.checked_mul(granularity)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ordinals_must_be_present_and_distinct() {
        ordinals(&[0, 1, 3]).unwrap();
        let err = ordinals(&[]).unwrap_err();
        assert_eq!(err.to_string(), "`ordinals`: a device group needs at least one device");
        let err = ordinals(&[2, 0, 2]).unwrap_err();
        assert_eq!(
            err.to_string(),
            "`ordinals`: device 2 is listed twice (ranks 0 and 2); each rank needs its own GPU"
        );
    }

    #[test]
    fn per_rank_values_match_the_ranks() {
        rank_count("x", 2, 2).unwrap();
        let err = rank_count("SymmetricTensor::from_host", 2, 3).unwrap_err();
        assert_eq!(
            err.to_string(),
            "`SymmetricTensor::from_host`: the group has 2 rank(s), so it takes one value per rank, but 3 were given"
        );
        assert!(matches!(uniform_shapes("x", 2, &[&[4, 8]]), Err(Error::RankCount { expected: 2, got: 1, .. })));
    }

    #[test]
    fn shapes_must_agree_across_ranks() {
        let a: &[usize] = &[4, 8];
        let b: &[usize] = &[4, 16];
        assert_eq!(uniform_shapes("x", 3, &[a, a, a]).unwrap(), a);
        let err = uniform_shapes("all_reduce send", 3, &[a, a, b]).unwrap_err();
        assert_eq!(
            err.to_string(),
            "`all_reduce send`: rank 2's tensor has shape [4, 16], but every rank's must be [4, 8]"
        );
    }

    #[test]
    fn gathers_stack_along_axis_zero() {
        assert_eq!(gathered_shape(&[4, 8], 2).unwrap(), [8, 8]);
        assert_eq!(gathered_shape(&[], 4).unwrap(), [4]);
        assert!(matches!(gathered_shape(&[usize::MAX, 2], 2), Err(Error::ShapeTooLarge { .. })));
    }

    #[test]
    fn scatters_split_axis_zero_evenly() {
        assert_eq!(scattered_shape("s", &[8, 3], 4).unwrap(), [2, 3]);
        let err = scattered_shape("reduce_scatter send", &[6, 3], 4).unwrap_err();
        assert!(err.to_string().contains("6 rows, not a multiple of 4"), "{err}");
        assert!(scattered_shape("s", &[], 2).is_err());
        // The inverse of a gather.
        let shape = [3, 5];
        assert_eq!(scattered_shape("s", &gathered_shape(&shape, 4).unwrap(), 4).unwrap(), shape);
    }

    #[test]
    fn sizes_round_up_to_whole_granules() {
        const G: usize = 2 << 20;
        assert_eq!(round_up(0, G), Some(G));
        assert_eq!(round_up(1, G), Some(G));
        assert_eq!(round_up(G, G), Some(G));
        assert_eq!(round_up(G + 1, G), Some(2 * G));
        assert_eq!(round_up(usize::MAX, G), None);
    }
}
