//! The GPU: a CUDA context on a Hopper device and the stream work is queued on.

use std::sync::{Arc, OnceLock};

use cudarc::driver::sys::CUresult;
use cudarc::driver::{CudaContext, CudaStream, DriverError};

use crate::driver;
use crate::error::{Error, Result};

/// tessel emits `sm_90a` PTX, which only compute capability 9.0 can run (PTX ISA "Target ISA
/// notes": the `a` features are not forward compatible).
const REQUIRED_CAPABILITY: (i32, i32) = (9, 0);

/// CUDA 12.0 introduced PTX ISA 8.0 and `cuTensorMapEncodeTiled` (CUDA 12.0 release notes).
const MIN_DRIVER_VERSION: i32 = 12000;

/// A Hopper GPU: owns a CUDA context (the device's primary context) and a default stream.
///
/// Cloning is cheap and shares the context and stream. A `Device` can also wrap a context or a
/// stream that cudarc code made ([`Device::from_context`], [`Device::from_stream`]); launches
/// then share them with that code.
#[derive(Debug, Clone)]
pub struct Device {
    context: Arc<CudaContext>,
    stream: Arc<CudaStream>,
    name: String,
    capability: (i32, i32),
}

impl Device {
    /// Opens device `ordinal` (0 is the first GPU).
    ///
    /// Fails with [`Error::NoDriver`] when libcuda cannot be loaded, [`Error::NoDevice`] when
    /// there is no such device, and [`Error::UnsupportedDevice`] when it is not an sm_90 GPU.
    pub fn new(ordinal: usize) -> Result<Device> {
        let (name, major, minor) = probe(ordinal)?;
        let context = CudaContext::new(ordinal)?;
        // The legacy default stream: work from every `Device` on this GPU runs in order, which
        // is what a user who never mentions streams expects.
        let stream = context.default_stream();
        Ok(Device { context, stream, name, capability: (major, minor) })
    }

    /// A device on a CUDA context your own cudarc code made (e.g. `CudaContext::new(0)?`), with the
    /// context's default stream. Checked as [`Device::new`] checks an ordinal.
    pub fn from_context(context: Arc<CudaContext>) -> Result<Device> {
        let stream = context.default_stream();
        Device::from_stream(stream)
    }

    /// A device whose copies and launches go to `stream`, a stream your own cudarc code made (e.g.
    /// `context.new_stream()?`), so that tessel's work is ordered with yours on it. Checked as
    /// [`Device::new`] checks an ordinal: the stream's device must be an sm_90 GPU.
    pub fn from_stream(stream: Arc<CudaStream>) -> Result<Device> {
        let context = Arc::clone(stream.context());
        let (name, major, minor) = probe(context.ordinal())?;
        Ok(Device { context, stream, name, capability: (major, minor) })
    }

    /// Whether [`Device::new(0)`](Device::new) would find a usable GPU: a driver, a device, and
    /// compute capability 9.0. Cheap (no context is created) and cached, so examples can pick
    /// between the GPU and the CPU interpreter.
    pub fn is_available() -> bool {
        static AVAILABLE: OnceLock<bool> = OnceLock::new();
        *AVAILABLE.get_or_init(|| probe(0).is_ok())
    }

    /// The device ordinal.
    pub fn ordinal(&self) -> usize {
        self.context.ordinal()
    }

    /// The device name, e.g. `NVIDIA H200`.
    pub fn name(&self) -> &str {
        &self.name
    }

    /// The compute capability as (major, minor); always (9, 0) for a `Device` that opened.
    pub fn compute_capability(&self) -> (i32, i32) {
        self.capability
    }

    /// The CUDA context, for use with cudarc (e.g. cuBLAS handles in benchmarks).
    pub fn context(&self) -> &Arc<CudaContext> {
        &self.context
    }

    /// The stream this device's copies and launches go to unless another is given.
    pub fn stream(&self) -> &Arc<CudaStream> {
        &self.stream
    }

    /// Creates a new stream on this device. Once a context has several streams, cudarc orders
    /// uses of each buffer across them with events (see [`crate::DeviceTensor::device_ptr`]).
    pub fn new_stream(&self) -> Result<Arc<CudaStream>> {
        Ok(self.context.new_stream()?)
    }

    /// Blocks until all work queued on this device's stream has finished, and reports any
    /// asynchronous error a kernel raised (e.g. an illegal address).
    pub fn synchronize(&self) -> Result<()> {
        Ok(self.stream.synchronize()?)
    }
}

/// Checks everything [`Device::new`] needs short of creating a context, returning the device's
/// name and compute capability. Never calls cudarc before libcuda is known to load, because
/// cudarc's dynamic loading panics when the library is missing.
fn probe(ordinal: usize) -> Result<(String, i32, i32)> {
    let count = visible_devices()?;
    if ordinal >= count {
        return Err(Error::NoDevice { ordinal, count });
    }
    let (name, major, minor) = driver::device_identity(ordinal)?;
    if (major, minor) != REQUIRED_CAPABILITY {
        return Err(Error::UnsupportedDevice { ordinal, name, major, minor });
    }
    Ok((name, major, minor))
}

/// How many CUDA devices the driver sees (0 when it sees none), after checking that libcuda loads
/// and is new enough. Never calls cudarc before libcuda is known to load, because cudarc's dynamic
/// loading panics when the library is missing.
pub(crate) fn visible_devices() -> Result<usize> {
    if !driver::library_present() {
        return Err(Error::NoDriver);
    }
    let version = match driver::init() {
        Ok(version) => version,
        Err(DriverError(CUresult::CUDA_ERROR_NO_DEVICE)) => return Ok(0),
        Err(other) => return Err(Error::from(other)),
    };
    if version < MIN_DRIVER_VERSION {
        return Err(Error::DriverTooOld { version });
    }
    Ok(driver::device_count()?)
}

/// Anything that names a stream to queue work on: a [`Device`] (its default stream) or a cudarc
/// stream. Launch functions and tensor constructors take `&impl AsStream`.
pub trait AsStream {
    /// The stream.
    fn as_stream(&self) -> &Arc<CudaStream>;
}

impl AsStream for Device {
    fn as_stream(&self) -> &Arc<CudaStream> {
        &self.stream
    }
}

impl AsStream for Arc<CudaStream> {
    fn as_stream(&self) -> &Arc<CudaStream> {
        self
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Without an NVIDIA driver (as on CI machines), opening a device is an error, not a panic.
    #[test]
    fn new_without_a_driver_is_no_driver() {
        if driver::library_present() {
            return; // A GPU machine: the GPU tests cover `Device::new`.
        }
        assert!(matches!(Device::new(0), Err(Error::NoDriver)));
        assert!(matches!(Device::new(3), Err(Error::NoDriver)));
        assert!(!Device::is_available());
    }

    #[test]
    fn no_driver_message_is_plain() {
        let text = Error::NoDriver.to_string();
        assert!(text.contains("libcuda"), "{text}");
        assert!(text.contains("interpret"), "{text}");
        // What `fn main() -> tessel::Result<()>` prints after "Error: ".
        assert_eq!(format!("{:?}", Error::NoDriver), text);
    }
}
