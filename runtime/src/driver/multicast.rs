//! Raw CUDA multicast object calls (Driver API, "Multicast Object Management", CUDA 12.1+), for
//! [`crate::SymmetricTensor::multicast`].
//!
//! The entry points are looked up with `cuGetProcAddress` instead of through cudarc's bindings:
//! cudarc declares them only when built for CUDA 12.1 or newer (tessel also builds for 12.0),
//! and its dynamic loading panics when a 12.0 driver lacks a symbol. A lookup that fails means
//! "no multicast here", which is an answer, not an error. `CUmulticastObjectProp` is declared here
//! for the same reason; its layout has not changed since CUDA 12.1.

use std::ffi::{c_int, c_uint, c_ulonglong, c_void, CStr};
use std::sync::OnceLock;

use cudarc::driver::sys::{self, CUdevice, CUresult};
use cudarc::driver::DriverError;

use super::vmm::Handle;

type DriverResult<T> = std::result::Result<T, DriverError>;

/// `CUmulticastObjectProp_v1` (cuda.h, CUDA 12.1 onwards).
#[repr(C)]
struct MulticastObjectProp {
    num_devices: c_uint,
    size: usize,
    handle_types: c_ulonglong,
    flags: c_ulonglong,
}

/// `CU_DEVICE_ATTRIBUTE_MULTICAST_SUPPORTED` (cuda.h, CUDA 12.1 onwards).
const ATTRIBUTE_MULTICAST_SUPPORTED: c_int = 132;
/// `CU_MULTICAST_GRANULARITY_MINIMUM`.
const GRANULARITY_MINIMUM: c_uint = 0;
/// The CUDA version whose ABI of each entry point we ask for: 12.1, where they appeared.
const ABI_VERSION: c_int = 12010;

/// The multicast entry points of the loaded driver.
struct Api {
    get_attribute: unsafe extern "C" fn(*mut c_int, c_int, CUdevice) -> CUresult,
    granularity: unsafe extern "C" fn(*mut usize, *const MulticastObjectProp, c_uint) -> CUresult,
    create: unsafe extern "C" fn(*mut Handle, *const MulticastObjectProp) -> CUresult,
    add_device: unsafe extern "C" fn(Handle, CUdevice) -> CUresult,
    bind_mem: unsafe extern "C" fn(Handle, usize, Handle, usize, usize, c_ulonglong) -> CUresult,
    unbind: unsafe extern "C" fn(Handle, CUdevice, usize, usize) -> CUresult,
}

/// `cuGetProcAddress` of one entry point, as a function pointer of type `F`.
///
/// # Safety
/// `F` must be the C signature of `name` at [`ABI_VERSION`].
unsafe fn lookup<F: Copy>(name: &CStr) -> Option<F> {
    const { assert!(std::mem::size_of::<F>() == std::mem::size_of::<*mut c_void>()) };
    let mut pointer: *mut c_void = std::ptr::null_mut();
    // Safety: `name` is NUL-terminated and `pointer` writable; a null status pointer is allowed.
    let status = unsafe { sys::cuGetProcAddress_v2(name.as_ptr(), &mut pointer, ABI_VERSION, 0, std::ptr::null_mut()) };
    if status.result().is_err() || pointer.is_null() {
        return None;
    }
    // Safety: a non-null entry point of the driver, whose signature is `F` by this function's contract.
    Some(unsafe { std::mem::transmute_copy::<*mut c_void, F>(&pointer) })
}

/// The entry points, looked up once; `None` when the driver predates CUDA 12.1.
fn api() -> Option<&'static Api> {
    static API: OnceLock<Option<Api>> = OnceLock::new();
    // Safety: each type below is the entry point's C signature in cuda.h (CUDA 12.1).
    API.get_or_init(|| unsafe {
        Some(Api {
            get_attribute: lookup(c"cuDeviceGetAttribute")?,
            granularity: lookup(c"cuMulticastGetGranularity")?,
            create: lookup(c"cuMulticastCreate")?,
            add_device: lookup(c"cuMulticastAddDevice")?,
            bind_mem: lookup(c"cuMulticastBindMem")?,
            unbind: lookup(c"cuMulticastUnbind")?,
        })
    })
    .as_ref()
}

/// The entry points, or `CUDA_ERROR_NOT_SUPPORTED` for a caller that checked [`supported`] first.
fn api_or_error() -> DriverResult<&'static Api> {
    api().ok_or(DriverError(CUresult::CUDA_ERROR_NOT_SUPPORTED))
}

/// Whether device `ordinal` can back multicast objects (`CU_DEVICE_ATTRIBUTE_MULTICAST_SUPPORTED`:
/// NVLink SHARP, i.e. GPUs connected through third-generation NVSwitches). `false` with a driver
/// older than CUDA 12.1.
pub(crate) fn supported(ordinal: CUdevice) -> DriverResult<bool> {
    let Some(api) = api() else { return Ok(false) };
    let mut value = 0;
    // Safety: `value` is writable; an invalid ordinal is an error result.
    unsafe { (api.get_attribute)(&mut value, ATTRIBUTE_MULTICAST_SUPPORTED, ordinal) }.result()?;
    Ok(value != 0)
}

fn prop(devices: usize, bytes: usize) -> MulticastObjectProp {
    // No exportable handle types: the multicast object never leaves this process.
    MulticastObjectProp { num_devices: devices as c_uint, size: bytes, handle_types: 0, flags: 0 }
}

/// `cuMulticastGetGranularity(CU_MULTICAST_GRANULARITY_MINIMUM)` for `devices` devices: what the
/// object's size and every bound size must be multiples of.
pub(crate) fn granularity(devices: usize, bytes: usize) -> DriverResult<usize> {
    let api = api_or_error()?;
    let prop = prop(devices, bytes);
    let mut granularity = 0usize;
    // Safety: `granularity` is writable and `prop` valid for the call.
    unsafe { (api.granularity)(&mut granularity, &prop, GRANULARITY_MINIMUM) }.result()?;
    Ok(granularity)
}

/// `cuMulticastCreate`: a multicast object of `bytes` (a multiple of [`granularity`]) per device
/// for a team of `devices` devices.
pub(crate) fn create(devices: usize, bytes: usize) -> DriverResult<Handle> {
    let api = api_or_error()?;
    let prop = prop(devices, bytes);
    let mut handle: Handle = 0;
    // Safety: `handle` is writable and `prop` valid for the call.
    unsafe { (api.create)(&mut handle, &prop) }.result()?;
    Ok(handle)
}

/// `cuMulticastAddDevice`. Every device joins before any memory is bound (the driver blocks a
/// bind until the team is complete, which would hang a single thread).
pub(crate) fn add_device(object: Handle, ordinal: CUdevice) -> DriverResult<()> {
    let api = api_or_error()?;
    // Safety: `object` is a live multicast object the caller owns.
    unsafe { (api.add_device)(object, ordinal) }.result()
}

/// `cuMulticastBindMem`: backs the object, on the device `memory` lives on, with all `bytes` of
/// `memory` (offsets 0).
pub(crate) fn bind_mem(object: Handle, memory: Handle, bytes: usize) -> DriverResult<()> {
    let api = api_or_error()?;
    // Safety: both handles are live and owned by the caller; `bytes` is a multiple of the
    // multicast granularity and no larger than either; flags must be 0.
    unsafe { (api.bind_mem)(object, 0, memory, 0, bytes, 0) }.result()
}

/// `cuMulticastUnbind`: undoes [`bind_mem`] for device `ordinal`.
pub(crate) fn unbind(object: Handle, ordinal: CUdevice, bytes: usize) -> DriverResult<()> {
    let api = api_or_error()?;
    // Safety: the caller bound `bytes` at offset 0 for this device and no queued work uses them.
    unsafe { (api.unbind)(object, ordinal, 0, bytes) }.result()
}
