//! Raw CUDA Driver API calls: the only module that calls `cudarc::driver::sys`.
//!
//! Each function names the Driver API entry point it wraps and makes the context current first,
//! because driver calls act on the calling thread's current context and the runtime may be used
//! from any thread (Driver API, "Context Management"). Everything above this module is safe code
//! over these functions and cudarc's safe API.
//!
//! cudarc is built with `dynamic-loading`: its first driver call `dlopen`s libcuda and *panics* if
//! the library is missing. [`library_present`] must therefore return `true` before anything here
//! (or in cudarc) is called; [`crate::Device::new`] is the gate.

pub(crate) mod multicast;
pub(crate) mod vmm;

use std::ffi::{c_void, CString};
use std::sync::OnceLock;

use cudarc::driver::{result, sys, CudaContext, DriverError};

use crate::error::{Error, Result};

/// Whether libcuda can be loaded, probed with the same library names cudarc will try.
///
/// Cached: loading a shared library is not free, and its presence does not change while we run.
pub(crate) fn library_present() -> bool {
    static PRESENT: OnceLock<bool> = OnceLock::new();
    // Safety: `is_culib_present` loads and unloads libcuda with `dlopen`; the only obligation is
    // that the library's initialisers are sound to run, which holds for the NVIDIA driver.
    *PRESENT.get_or_init(|| unsafe { sys::is_culib_present() })
}

/// `cuInit` then `cuDriverGetVersion`: initialises the driver and returns its CUDA version
/// (e.g. `13000`). Needs [`library_present`].
pub(crate) fn init() -> std::result::Result<i32, DriverError> {
    result::init()?;
    let mut version = 0;
    // Safety: `version` is a valid, writable `int` for the duration of the call.
    unsafe { sys::cuDriverGetVersion(&mut version) }.result()?;
    Ok(version)
}

/// `cuDeviceGetCount`. Needs [`init`].
pub(crate) fn device_count() -> std::result::Result<usize, DriverError> {
    let count = result::device::get_count()?;
    Ok(usize::try_from(count).unwrap_or(0))
}

/// `cuDeviceGet`, `cuDeviceGetName` and `cuDeviceGetAttribute(COMPUTE_CAPABILITY_{MAJOR,MINOR})`:
/// the name and compute capability of a device, without creating a context. Needs [`init`].
pub(crate) fn device_identity(ordinal: usize) -> Result<(String, i32, i32)> {
    use sys::CUdevice_attribute::{
        CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR as MAJOR, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR as MINOR,
    };
    let ordinal =
        i32::try_from(ordinal).map_err(|_| Error::Internal(format!("device ordinal {ordinal} does not fit in i32")))?;
    let device = result::device::get(ordinal)?;
    let name = result::device::get_name(device)?;
    // Safety: `device` is a valid device handle returned by `cuDeviceGet` just above.
    let (major, minor) =
        unsafe { (result::device::get_attribute(device, MAJOR)?, result::device::get_attribute(device, MINOR)?) };
    Ok((name, major, minor))
}

/// Bytes reserved for each JIT log. ptxas messages are short; 64 KiB holds hundreds of lines.
const LOG_BYTES: usize = 1 << 16;

/// `cuModuleLoadDataEx` with the JIT info and error logs captured (`CU_JIT_INFO_LOG_BUFFER`,
/// `CU_JIT_ERROR_LOG_BUFFER`, their `_SIZE_BYTES`, and `CU_JIT_LOG_VERBOSE`).
///
/// cudarc's `load_module` passes no options, so the log that carries ptxas's wgmma
/// serialization warnings (C7514, C7517, C7519, ...) would be lost. Returns the module and the
/// info log; a rejection becomes [`Error::Jit`] with the error log.
pub(crate) fn module_load_with_log(ctx: &CudaContext, ptx: &str) -> Result<(sys::CUmodule, String)> {
    use sys::CUjit_option::*;
    let image = CString::new(ptx).map_err(|_| Error::Internal("the kernel's PTX text contains a NUL byte".into()))?;
    ctx.bind_to_thread()?;
    let mut info = vec![0u8; LOG_BYTES];
    let mut error = vec![0u8; LOG_BYTES];
    let mut options = [
        CU_JIT_INFO_LOG_BUFFER,
        CU_JIT_INFO_LOG_BUFFER_SIZE_BYTES,
        CU_JIT_ERROR_LOG_BUFFER,
        CU_JIT_ERROR_LOG_BUFFER_SIZE_BYTES,
        CU_JIT_LOG_VERBOSE,
    ];
    // Size and flag options are passed by value in the pointer slot (Driver API `CUjit_option`).
    let mut values: [*mut c_void; 5] = [
        info.as_mut_ptr().cast(),
        std::ptr::without_provenance_mut(LOG_BYTES),
        error.as_mut_ptr().cast(),
        std::ptr::without_provenance_mut(LOG_BYTES),
        std::ptr::without_provenance_mut(1),
    ];
    let mut module: sys::CUmodule = std::ptr::null_mut();
    // Safety: `image` is a NUL-terminated PTX string; `options` and `values` have the same length
    // (5), and each log buffer is writable for the LOG_BYTES its size option announces. All of
    // them outlive the call, which is synchronous.
    let status = unsafe {
        sys::cuModuleLoadDataEx(
            &mut module,
            image.as_ptr().cast(),
            options.len() as u32,
            options.as_mut_ptr(),
            values.as_mut_ptr(),
        )
    };
    // On return the size slots hold the number of bytes written (Driver API `CUjit_option`).
    let info_log = log_text(&info, values[1].addr());
    let error_log = log_text(&error, values[3].addr());
    match status.result() {
        Ok(()) => Ok((module, info_log)),
        Err(err) => Err(Error::Jit { source: err, log: if error_log.is_empty() { info_log } else { error_log } }),
    }
}

/// The text of a JIT log buffer: up to the first NUL, at most `written` bytes.
fn log_text(buffer: &[u8], written: usize) -> String {
    let filled = &buffer[..written.min(buffer.len())];
    let end = filled.iter().position(|&b| b == 0).unwrap_or(filled.len());
    String::from_utf8_lossy(&filled[..end]).trim_end().to_string()
}

/// `cuModuleGetFunction`: the kernel named `entry` in `module`.
pub(crate) fn module_get_function(ctx: &CudaContext, module: sys::CUmodule, entry: &str) -> Result<sys::CUfunction> {
    let name =
        CString::new(entry).map_err(|_| Error::Internal(format!("kernel name {entry:?} contains a NUL byte")))?;
    ctx.bind_to_thread()?;
    let mut function: sys::CUfunction = std::ptr::null_mut();
    // Safety: `module` is a live module loaded in `ctx` (the caller owns it), `name` is
    // NUL-terminated, and `function` is writable.
    let status = unsafe { sys::cuModuleGetFunction(&mut function, module, name.as_ptr()) };
    status
        .result()
        .map_err(|source| Error::LaunchRejected { reason: format!("the PTX has no kernel named `{entry}`"), source })?;
    Ok(function)
}

/// `cuModuleUnload`. Errors are returned for the caller to record, since it runs in `Drop`.
pub(crate) fn module_unload(ctx: &CudaContext, module: sys::CUmodule) -> std::result::Result<(), DriverError> {
    ctx.bind_to_thread()?;
    // Safety: the caller owns `module`, loaded in `ctx`, and never uses it again.
    unsafe { sys::cuModuleUnload(module) }.result()
}

/// `cuFuncSetAttribute(CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES)`: lets launches of
/// `function` request up to `bytes` of dynamic shared memory (needed above 48 KiB).
pub(crate) fn set_max_dynamic_smem(
    ctx: &CudaContext,
    function: sys::CUfunction,
    bytes: u32,
) -> std::result::Result<(), DriverError> {
    use sys::CUfunction_attribute::CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES as MAX_DYNAMIC;
    let value = i32::try_from(bytes).unwrap_or(i32::MAX);
    ctx.bind_to_thread()?;
    // Safety: `function` belongs to a module loaded in `ctx` that the caller keeps alive.
    unsafe { sys::cuFuncSetAttribute(function, MAX_DYNAMIC, value) }.result()
}

/// Grid, block and dynamic shared memory of one launch, as `cuLaunchKernel` takes them.
pub(crate) struct RawLaunch {
    pub grid: [u32; 3],
    pub block: [u32; 3],
    pub dynamic_smem: u32,
}

/// `cuLaunchKernel` on `stream` with a parameter array (`kernelParams`, no `extra`).
///
/// # Safety
/// - `function` is a kernel of a live module loaded in `ctx`, and `stream` belongs to `ctx`.
/// - `params` has one pointer per kernel parameter, in order, each pointing at a value of that
///   parameter's exact size and alignment; the driver copies them before returning.
/// - Every device address inside those values stays valid until the kernel has finished.
pub(crate) unsafe fn launch_kernel(
    ctx: &CudaContext,
    function: sys::CUfunction,
    stream: sys::CUstream,
    launch: &RawLaunch,
    params: &mut [*mut c_void],
) -> std::result::Result<(), DriverError> {
    ctx.bind_to_thread()?;
    let [gx, gy, gz] = launch.grid;
    let [bx, by, bz] = launch.block;
    // Safety: forwarded from this function's contract.
    unsafe {
        sys::cuLaunchKernel(
            function,
            gx,
            gy,
            gz,
            bx,
            by,
            bz,
            launch.dynamic_smem,
            stream,
            params.as_mut_ptr(),
            std::ptr::null_mut(),
        )
    }
    .result()
}

/// The arguments of `cuTensorMapEncodeTiled`, innermost dimension first, as the driver wants.
pub(crate) struct RawTiledMap<'a> {
    pub dtype: sys::CUtensorMapDataType,
    pub address: u64,
    pub dims: &'a [u64],
    /// Byte strides of dimensions 1.. (dimension 0 is contiguous), `dims.len() - 1` of them.
    pub strides: &'a [u64],
    pub box_dims: &'a [u32],
    pub swizzle: sys::CUtensorMapSwizzle,
}

/// `cuTensorMapEncodeTiled`: encodes a TMA descriptor. Element strides are all 1, no interleave,
/// L2 promotion of 128 B (as CUTLASS's `make_tma_copy`), and out-of-bounds elements read as zero.
///
/// The caller validates the layout first ([`crate::tensor_map::TensorMapLayout::validate`]) so
/// that violations get specific messages; the driver only says `CUDA_ERROR_INVALID_VALUE`.
pub(crate) fn encode_tiled(map: &RawTiledMap<'_>) -> std::result::Result<sys::CUtensorMap, DriverError> {
    use sys::CUtensorMapFloatOOBfill::CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE as FILL_ZERO;
    use sys::CUtensorMapInterleave::CU_TENSOR_MAP_INTERLEAVE_NONE as NO_INTERLEAVE;
    use sys::CUtensorMapL2promotion::CU_TENSOR_MAP_L2_PROMOTION_L2_128B as L2_128B;
    let rank = map.dims.len();
    if rank == 0 || rank > 5 || map.box_dims.len() != rank || map.strides.len() + 1 != rank {
        return Err(DriverError(sys::CUresult::CUDA_ERROR_INVALID_VALUE));
    }
    let element_strides = [1u32; 5];
    let mut raw = sys::CUtensorMap { opaque: [0; 16] };
    // Safety: `raw` is a writable, 64-byte aligned CUtensorMap; `dims` and `box_dims` hold `rank`
    // entries, `strides` rank - 1 and `element_strides` at least rank (checked above). The call
    // only encodes `address` into the descriptor; it does not access the memory.
    unsafe {
        sys::cuTensorMapEncodeTiled(
            &mut raw,
            map.dtype,
            rank as u32,
            std::ptr::with_exposed_provenance_mut(map.address as usize),
            map.dims.as_ptr(),
            map.strides.as_ptr(),
            map.box_dims.as_ptr(),
            element_strides.as_ptr(),
            NO_INTERLEAVE,
            map.swizzle,
            L2_128B,
            FILL_ZERO,
        )
    }
    .result()?;
    Ok(raw)
}
