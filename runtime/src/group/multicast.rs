//! A multicast object over a symmetric allocation (CUDA Programming Guide, "Multicast Support"):
//! one address, the same on every device, whose accesses by `multimem` instructions reach every
//! rank's copy at once through NVLink SHARP.
//!
//! The steps: create the object for the group's team, add every device (all of them before any
//! bind: a bind blocks until the team is complete), bind each rank's physical memory, reserve an
//! address range, map the object there and grant every device access. [`MulticastMapping`] records
//! each step, and its `Drop` undoes them in reverse, complete or not.

use std::sync::Arc;

use cudarc::driver::CudaContext;

use crate::driver::{multicast, vmm};
use crate::error::Result;

use super::allocation::Allocation;

/// A multicast object bound to every rank's memory of an [`Allocation`], and mapped.
pub(super) struct MulticastMapping {
    contexts: Vec<Arc<CudaContext>>,
    /// Bytes of the object: the allocation's stride.
    bytes: usize,
    object: Option<vmm::Handle>,
    /// Devices whose memory is bound so far.
    bound: Vec<i32>,
    /// The reserved range, once reserved.
    address: Option<u64>,
    mapped: bool,
}

impl MulticastMapping {
    /// Binds a multicast object to all of `memory` (whose stride is a multiple of the multicast
    /// granularity: the group supported multicast when it was allocated).
    pub(super) fn new(memory: &Allocation) -> Result<MulticastMapping> {
        let contexts = memory.contexts().to_vec();
        let bytes = memory.stride();
        let mut mapping =
            MulticastMapping { contexts, bytes, object: None, bound: Vec::new(), address: None, mapped: false };
        mapping.contexts[0].bind_to_thread()?;
        let devices: Vec<i32> = mapping.contexts.iter().map(|c| c.cu_device()).collect();
        let object = multicast::create(devices.len(), bytes)?;
        mapping.object = Some(object);
        for &device in &devices {
            multicast::add_device(object, device)?;
        }
        for (rank, &device) in devices.iter().enumerate() {
            multicast::bind_mem(object, memory.handle(rank), bytes)?;
            mapping.bound.push(device);
        }
        let granularity = multicast::granularity(devices.len(), bytes)?;
        let address = vmm::reserve(bytes, granularity)?;
        mapping.address = Some(address);
        vmm::map(address, bytes, object)?;
        mapping.mapped = true;
        vmm::set_access(address, bytes, &devices)?;
        Ok(mapping)
    }

    /// The multicast address, valid on every device of the group.
    pub(super) fn address(&self) -> u64 {
        self.address.unwrap_or(0)
    }
}

impl Drop for MulticastMapping {
    /// Waits for every rank's queued work, then unmaps, frees the range, unbinds every device's
    /// memory and releases the object. Errors are ignored, as in [`Allocation`]'s `Drop`.
    fn drop(&mut self) {
        for context in &self.contexts {
            let _ = context.synchronize();
        }
        let _ = self.contexts[0].bind_to_thread();
        if let Some(address) = self.address {
            if self.mapped {
                let _ = vmm::unmap(address, self.bytes);
            }
            let _ = vmm::address_free(address, self.bytes);
        }
        if let Some(object) = self.object {
            for &device in &self.bound {
                let _ = multicast::unbind(object, device, self.bytes);
            }
            let _ = vmm::release(object);
        }
    }
}
