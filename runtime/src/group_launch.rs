//! What the launch functions generated for a kernel of several devices (`devices = W`) call,
//! through `::tessel::__private`: the checks of a group launch's arguments, and the kernel
//! arguments of a [`SymmetricTensor`] (its copies' addresses, its tensor maps).
//!
//! A group launch checks every rank's arguments before any rank launches: the group's size
//! against the kernel's `W`, one tensor per rank for each global array, one shape on every rank,
//! each symmetric tensor of this group (`DeviceGroup::check_symmetric`); then each rank's own
//! launch checks (devices, shapes, divisibility, grid) as a one-device launch makes them. (Views
//! are taken as well as tensors, so the per-rank checks here take shapes, where
//! `DeviceGroup::check_per_rank` takes `DeviceTensor`s.)

use crate::element::Element;
use crate::error::{Error, Result};
use crate::group::{DeviceGroup, SymmetricTensor};
use crate::tensor_map::{tensor_map_of, TensorMap};
use crate::Swizzle;

/// The group has as many devices as the kernel runs on (`devices = W`).
pub fn check_group(entry: &'static str, group: &DeviceGroup, devices: usize) -> Result<()> {
    if group.len() == devices {
        return Ok(());
    }
    Err(Error::InvalidArgument {
        argument: "group",
        reason: format!(
            "`{entry}` runs on {devices} devices (`devices = {devices}`), but the group has {}",
            group.len()
        ),
    })
}

/// A global array's per-rank argument has one tensor per rank of the group.
pub fn check_rank_count(argument: &'static str, group: &DeviceGroup, got: usize) -> Result<()> {
    match got == group.len() {
        true => Ok(()),
        false => Err(Error::RankCount { argument, expected: group.len(), got }),
    }
}

/// Rank `rank`'s tensor has rank 0's shape: one kernel, one grid, on every device.
pub fn check_rank_shape(argument: &'static str, rank: usize, first: &[usize], got: &[usize]) -> Result<()> {
    match first == got {
        true => Ok(()),
        false => Err(Error::RankShape { argument, rank, expected: first.to_vec(), got: got.to_vec() }),
    }
}

/// Every rank's address of `t`, in rank order: a `#[peers]` parameter's peer addresses
/// (`KernelArg::Ptrs`).
pub fn peer_ptrs<T: Element>(t: &SymmetricTensor<T>) -> Vec<u64> {
    (0..t.ranks()).map(|r| t.peer_ptr(r)).collect()
}

/// The tensor map of rank `rank`'s copy of `t`, moved in boxes of `box_shape` (the map a TMA copy
/// of this rank's own copy uses). `rank` is below `t.ranks()` (the generated code's loop).
pub fn symmetric_tensor_map<T: Element>(
    t: &SymmetricTensor<T>,
    name: &'static str,
    rank: usize,
    box_shape: &[u32],
    swizzle: Swizzle,
) -> Result<TensorMap> {
    tensor_map_of::<T>(name, t.peer_ptr(rank), t.shape(), box_shape, swizzle, None)
}

/// Every rank's [`symmetric_tensor_map`], in rank order: the map a TMA copy of a peer's copy
/// (`remote(buf, rank)`) picks from (`KernelArg::TensorMaps`).
pub fn symmetric_tensor_maps<T: Element>(
    t: &SymmetricTensor<T>,
    name: &'static str,
    box_shape: &[u32],
    swizzle: Swizzle,
) -> Result<Vec<TensorMap>> {
    (0..t.ranks()).map(|r| symmetric_tensor_map(t, name, r, box_shape, swizzle)).collect()
}
