//! The memory behind a [`SymmetricTensor`](super::SymmetricTensor): one physical allocation per
//! rank, mapped side by side in one virtual address range that every device of the group may read
//! and write (CUDA Programming Guide, "Virtual Memory Management").
//!
//! ```text
//! base                base + stride        base + 2 * stride
//! | rank 0's memory   | rank 1's memory    | ...
//! ```
//!
//! [`Allocation`] records each step as it succeeds (reservation, handles, mappings), so that its
//! `Drop` undoes exactly what was done, whether the allocation is complete or failed part-way.

use std::sync::Arc;

use cudarc::driver::CudaContext;

use crate::driver::{multicast, vmm};
use crate::error::{Error, Result};

use super::check::round_up;
use super::DeviceGroup;

/// Physical memory on every rank, mapped at `base + rank * stride` and accessible from every device.
pub(super) struct Allocation {
    /// Each rank's context, kept alive until the memory is gone.
    contexts: Vec<Arc<CudaContext>>,
    /// Bytes per rank: a multiple of every granularity involved.
    stride: usize,
    /// The reserved range, `(base, bytes)`, once reserved.
    reserved: Option<(u64, usize)>,
    /// Each rank's physical allocation, in rank order, as created so far.
    handles: Vec<vmm::Handle>,
    /// How many ranks (from 0) are mapped so far.
    mapped: usize,
}

impl Allocation {
    /// At least `bytes` on every rank of `group`, mapped and accessible from every device. The
    /// contents are undefined.
    pub(super) fn new(group: &DeviceGroup, bytes: usize) -> Result<Allocation> {
        let contexts: Vec<Arc<CudaContext>> = group.devices().iter().map(|d| Arc::clone(d.context())).collect();
        contexts[0].bind_to_thread()?;
        let granularity = granularity(group, bytes)?;
        let stride = round_up(bytes, granularity).ok_or_else(|| too_large(bytes))?;
        let total = stride.checked_mul(contexts.len()).ok_or_else(|| too_large(bytes))?;
        let mut allocation = Allocation { contexts, stride, reserved: None, handles: Vec::new(), mapped: 0 };
        allocation.reserved = Some((vmm::reserve(total, granularity)?, total));
        for context in &allocation.contexts {
            let handle = vmm::create(stride, context.cu_device())?;
            allocation.handles.push(handle);
        }
        let ordinals: Vec<i32> = allocation.contexts.iter().map(|c| c.cu_device()).collect();
        for rank in 0..allocation.handles.len() {
            vmm::map(allocation.peer_ptr(rank), stride, allocation.handles[rank])?;
            allocation.mapped += 1;
            // Without `cuMemSetAccess` no device, not even the owner, may touch a mapping.
            vmm::set_access(allocation.peer_ptr(rank), stride, &ordinals)?;
        }
        Ok(allocation)
    }

    /// The device address of rank `rank`'s memory, the same in every context of the process.
    pub(super) fn peer_ptr(&self, rank: usize) -> u64 {
        let base = self.reserved.map_or(0, |(base, _)| base);
        base + (rank * self.stride) as u64
    }

    /// Bytes per rank, and the distance between two ranks' addresses.
    pub(super) fn stride(&self) -> usize {
        self.stride
    }

    /// Rank `rank`'s physical allocation.
    pub(super) fn handle(&self, rank: usize) -> vmm::Handle {
        self.handles[rank]
    }

    /// Each rank's context.
    pub(super) fn contexts(&self) -> &[Arc<CudaContext>] {
        &self.contexts
    }
}

impl Drop for Allocation {
    /// Waits for every rank's queued work (a kernel may still use the memory; unmapping does not
    /// wait), then unmaps, releases the handles and frees the reservation, in that order. Errors
    /// are ignored: there is nothing left to do about them, and `Drop` must not panic.
    fn drop(&mut self) {
        for context in &self.contexts {
            let _ = context.synchronize();
        }
        let _ = self.contexts[0].bind_to_thread();
        for rank in 0..self.mapped {
            let _ = vmm::unmap(self.peer_ptr(rank), self.stride);
        }
        for &handle in &self.handles {
            let _ = vmm::release(handle);
        }
        if let Some((base, bytes)) = self.reserved {
            let _ = vmm::address_free(base, bytes);
        }
    }
}

/// What per-rank sizes and mapping addresses are multiples of: the allocation granularity of
/// every device and, where the group can use multicast, the multicast granularity too, so that a
/// multicast object can later be bound to the same memory. All are powers of two.
fn granularity(group: &DeviceGroup, bytes: usize) -> Result<usize> {
    let mut granularity = 1usize;
    for device in group.devices() {
        granularity = granularity.max(vmm::granularity(device.context().cu_device())?);
    }
    if group.supports_multicast() {
        granularity = granularity.max(multicast::granularity(group.len(), bytes)?);
    }
    Ok(granularity)
}

fn too_large(bytes: usize) -> Error {
    Error::InvalidArgument {
        argument: "shape",
        reason: format!("{bytes} bytes per rank, rounded up to whole pages on every rank, do not fit in usize"),
    }
}
