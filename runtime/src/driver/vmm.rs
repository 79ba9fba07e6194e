//! Raw CUDA virtual memory management calls (Driver API, "Virtual Memory Management" and
//! "Peer Context Memory Access"), for [`crate::SymmetricTensor`].
//!
//! The caller binds a context of the group to the thread first ([`CudaContext::bind_to_thread`]):
//! these entry points need an initialised driver, and the copies act in the current context.
//! Every function returns the driver's result; none keeps state, so that the owner of the
//! allocation ([`crate::group`]) decides what to undo on an error part-way.

use std::ffi::c_void;

use cudarc::driver::{sys, CudaContext, DriverError};

type DriverResult<T> = std::result::Result<T, DriverError>;

/// A physical allocation (`cuMemCreate`) or a multicast object (`cuMulticastCreate`).
pub(crate) type Handle = sys::CUmemGenericAllocationHandle;

// `CUmemLocation` is `{ CUmemLocationType type; int id; }` in CUDA 12 and puts `id` in a union at
// the same offset from CUDA 13.2, so `device_location` writes it through a pointer and compiles
// against both. This assertion keeps the layout honest.
const _: () = assert!(std::mem::size_of::<sys::CUmemLocation>() == 8);

/// A `CUmemLocation` naming device `ordinal`.
fn device_location(ordinal: i32) -> sys::CUmemLocation {
    // Safety: every field of `CUmemLocation` is an integer or an enum whose zero is a variant
    // (`CU_MEM_LOCATION_TYPE_INVALID`).
    let mut location: sys::CUmemLocation = unsafe { std::mem::zeroed() };
    location.type_ = sys::CUmemLocationType::CU_MEM_LOCATION_TYPE_DEVICE;
    // Safety: `id` is the `int` at byte 4 of the 8-byte struct (asserted above), in every CUDA
    // version cudarc binds.
    unsafe { (&raw mut location).cast::<i32>().add(1).write(ordinal) };
    location
}

/// Pinned device memory on device `ordinal`, with no exportable handle types: one process only.
fn allocation_prop(ordinal: i32) -> sys::CUmemAllocationProp {
    // Safety: every field is an integer, a null pointer, or an enum whose zero is a variant
    // (`CU_MEM_ALLOCATION_TYPE_INVALID`, `CU_MEM_HANDLE_TYPE_NONE`).
    let mut prop: sys::CUmemAllocationProp = unsafe { std::mem::zeroed() };
    prop.type_ = sys::CUmemAllocationType::CU_MEM_ALLOCATION_TYPE_PINNED;
    prop.location = device_location(ordinal);
    prop
}

/// `cuMemGetAllocationGranularity(CU_MEM_ALLOC_GRANULARITY_MINIMUM)`: what sizes and mapping
/// offsets on device `ordinal` must be multiples of (2 MiB on Hopper).
pub(crate) fn granularity(ordinal: i32) -> DriverResult<usize> {
    use sys::CUmemAllocationGranularity_flags::CU_MEM_ALLOC_GRANULARITY_MINIMUM as MINIMUM;
    let prop = allocation_prop(ordinal);
    let mut granularity = 0usize;
    // Safety: `granularity` is writable and `prop` a valid property struct, both live for the call.
    unsafe { sys::cuMemGetAllocationGranularity(&mut granularity, &prop, MINIMUM) }.result()?;
    Ok(granularity)
}

/// `cuMemCreate`: `bytes` (a multiple of [`granularity`]) of physical memory on device `ordinal`.
pub(crate) fn create(bytes: usize, ordinal: i32) -> DriverResult<Handle> {
    let prop = allocation_prop(ordinal);
    let mut handle: Handle = 0;
    // Safety: `handle` is writable and `prop` valid for the call; flags must be 0.
    unsafe { sys::cuMemCreate(&mut handle, bytes, &prop, 0) }.result()?;
    Ok(handle)
}

/// `cuMemRelease`: gives up the handle; the memory is freed once no mapping uses it.
pub(crate) fn release(handle: Handle) -> DriverResult<()> {
    // Safety: the caller owns `handle` (from `create`) and never uses it again.
    unsafe { sys::cuMemRelease(handle) }.result()
}

/// `cuMemAddressReserve`: `bytes` of virtual address space, aligned to `alignment`, at an address
/// the driver chooses. Unified addressing makes the range the same in every context of the process.
pub(crate) fn reserve(bytes: usize, alignment: usize) -> DriverResult<u64> {
    let mut address: sys::CUdeviceptr = 0;
    // Safety: `address` is writable; no hint address (0) and flags must be 0.
    unsafe { sys::cuMemAddressReserve(&mut address, bytes, alignment, 0, 0) }.result()?;
    Ok(address)
}

/// `cuMemAddressFree`: returns a reservation; `address` and `bytes` are what [`reserve`] took.
pub(crate) fn address_free(address: u64, bytes: usize) -> DriverResult<()> {
    // Safety: the caller owns the reservation, which has no mapping left.
    unsafe { sys::cuMemAddressFree(address, bytes) }.result()
}

/// `cuMemMap`: maps all `bytes` of `handle` at `address`, inside a reservation.
pub(crate) fn map(address: u64, bytes: usize, handle: Handle) -> DriverResult<()> {
    // Safety: `address..address + bytes` lies inside a reservation the caller owns and is not
    // mapped yet; `handle` holds at least `bytes` (offset 0); flags must be 0.
    unsafe { sys::cuMemMap(address, bytes, 0, handle, 0) }.result()
}

/// `cuMemUnmap`: removes the mapping made by [`map`] at `address` (the same `bytes`).
pub(crate) fn unmap(address: u64, bytes: usize) -> DriverResult<()> {
    // Safety: the caller mapped exactly this range and no queued work uses it any more.
    unsafe { sys::cuMemUnmap(address, bytes) }.result()
}

/// `cuMemSetAccess`: lets every device of `ordinals` read and write `address..address + bytes`.
/// A device that is not listed cannot touch the range at all (a fault, not a slow path).
pub(crate) fn set_access(address: u64, bytes: usize, ordinals: &[i32]) -> DriverResult<()> {
    use sys::CUmemAccess_flags::CU_MEM_ACCESS_FLAGS_PROT_READWRITE as READWRITE;
    let descriptors: Vec<sys::CUmemAccessDesc> = ordinals
        .iter()
        .map(|&ordinal| sys::CUmemAccessDesc { location: device_location(ordinal), flags: READWRITE })
        .collect();
    // Safety: `descriptors` holds `descriptors.len()` valid entries for the call; the range is
    // mapped by the caller.
    unsafe { sys::cuMemSetAccess(address, bytes, descriptors.as_ptr(), descriptors.len()) }.result()
}

/// `cuDeviceCanAccessPeer`: whether device `from` can map memory of device `to` (over NVLink or
/// PCIe).
pub(crate) fn can_access_peer(from: i32, to: i32) -> DriverResult<bool> {
    let mut can = 0;
    // Safety: `can` is writable; device ordinals are device handles (`cuDeviceGet` returns the
    // ordinal), and the driver rejects an invalid one with an error.
    unsafe { sys::cuDeviceCanAccessPeer(&mut can, from, to) }.result()?;
    Ok(can != 0)
}

/// `cuDeviceGetAttribute(CU_DEVICE_ATTRIBUTE_VIRTUAL_ADDRESS_MANAGEMENT_SUPPORTED)`: whether
/// `cuMemCreate` and `cuMemMap` work on device `ordinal`.
pub(crate) fn vmm_supported(ordinal: i32) -> DriverResult<bool> {
    use sys::CUdevice_attribute::CU_DEVICE_ATTRIBUTE_VIRTUAL_ADDRESS_MANAGEMENT_SUPPORTED as VMM;
    let mut value = 0;
    // Safety: `value` is writable; an invalid ordinal is an error result.
    unsafe { sys::cuDeviceGetAttribute(&mut value, VMM, ordinal) }.result()?;
    Ok(value != 0)
}

/// `cuMemsetD8Async` of `bytes` zero bytes at `address`, queued on `stream` of `ctx`.
pub(crate) fn zero_async(ctx: &CudaContext, stream: sys::CUstream, address: u64, bytes: usize) -> DriverResult<()> {
    ctx.bind_to_thread()?;
    // Safety: `address..address + bytes` is mapped and accessible from `ctx`'s device, and stays
    // so until the caller has synchronized `stream`.
    unsafe { sys::cuMemsetD8Async(address, 0, bytes, stream) }.result()
}

/// `cuMemcpyHtoDAsync` of `src` to `address`, queued on `stream` of `ctx`, then
/// `cuStreamSynchronize`, so that `src` may be dropped on return.
pub(crate) fn copy_to_device<T>(ctx: &CudaContext, stream: sys::CUstream, src: &[T], address: u64) -> DriverResult<()> {
    ctx.bind_to_thread()?;
    let bytes = std::mem::size_of_val(src);
    // Safety: `src` is readable for `bytes` until the stream has been synchronized below, and the
    // destination range is mapped, accessible from `ctx`'s device and at least `bytes` long.
    unsafe { sys::cuMemcpyHtoDAsync_v2(address, src.as_ptr().cast::<c_void>(), bytes, stream) }.result()?;
    // Safety: `stream` belongs to `ctx`, which the caller keeps alive.
    unsafe { sys::cuStreamSynchronize(stream) }.result()
}

/// `cuMemcpyDtoHAsync` from `address` into `dst`, queued on `stream` of `ctx`, then
/// `cuStreamSynchronize`, so that `dst` holds the data on return.
pub(crate) fn copy_to_host<T: Copy>(
    ctx: &CudaContext,
    stream: sys::CUstream,
    address: u64,
    dst: &mut [T],
) -> DriverResult<()> {
    ctx.bind_to_thread()?;
    let bytes = std::mem::size_of_val(dst);
    // Safety: `dst` is writable for `bytes` until the stream has been synchronized below; `T` is
    // plain data (`Copy`, every bit pattern the device wrote is one the caller's element type
    // accepts: tessel elements are numbers); the source range is mapped and long enough.
    unsafe { sys::cuMemcpyDtoHAsync_v2(dst.as_mut_ptr().cast::<c_void>(), address, bytes, stream) }.result()?;
    // Safety: as in `copy_to_device`.
    unsafe { sys::cuStreamSynchronize(stream) }.result()
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The location's ordinal lands where both CUDA 12's field and CUDA 13.2's union put it.
    #[test]
    fn device_location_writes_the_ordinal() {
        let location = device_location(5);
        // Safety: reading the 8 bytes of a plain C struct as two `i32`s.
        let words: [i32; 2] = unsafe { std::mem::transmute(location) };
        assert_eq!(words, [sys::CUmemLocationType::CU_MEM_LOCATION_TYPE_DEVICE as i32, 5]);
    }
}
