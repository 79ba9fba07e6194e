//! The one error type of the runtime.
//!
//! Every failure of a launch, a copy, a tensor map or the driver is an [`Error`]; the runtime never
//! panics on user input. Each variant carries what the user needs to fix the call (the tensor, the
//! axis, the value and the rule it broke), and its `Display` says it in one sentence. A failure the
//! driver reported keeps the driver's result code as its [`source`](std::error::Error::source), a
//! cudarc [`DriverError`], also at hand through [`Error::driver_error`].

use std::fmt;

use cudarc::driver::DriverError;

use crate::driver;

/// A runtime failure: bad launch arguments, a missing or unsupported GPU, or a driver error.
///
/// New variants may be added in minor releases, so a `match` needs a `_` arm. To react to one
/// driver result, such as running out of memory, match [`Error::driver_error`]:
///
/// ```
/// use tessel_runtime::cudarc::driver::{sys::CUresult, DriverError};
/// use tessel_runtime::Error;
///
/// fn out_of_memory(err: &Error) -> bool {
///     matches!(err.driver_error(), Some(DriverError(CUresult::CUDA_ERROR_OUT_OF_MEMORY)))
/// }
///
/// let err = Error::Driver(DriverError(CUresult::CUDA_ERROR_OUT_OF_MEMORY));
/// assert!(out_of_memory(&err));
/// assert!(!out_of_memory(&Error::NoDriver));
/// ```
#[derive(Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum Error {
    /// `libcuda` could not be loaded: there is no NVIDIA driver on this machine (or it is not on
    /// the library path).
    NoDriver,
    /// The driver is older than CUDA 12.0, which introduced PTX 8.0 and `cuTensorMapEncodeTiled`.
    DriverTooOld {
        /// The version `cuDriverGetVersion` reported, e.g. `11080` for CUDA 11.8.
        version: i32,
    },
    /// The driver loaded but there is no device with this ordinal.
    NoDevice {
        /// The ordinal that was asked for.
        ordinal: usize,
        /// How many CUDA devices the driver sees.
        count: usize,
    },
    /// The device is not a Hopper (sm_90) GPU, so it cannot run `sm_90a` PTX.
    UnsupportedDevice {
        /// The device ordinal.
        ordinal: usize,
        /// The device name, e.g. `NVIDIA A100-SXM4-80GB`.
        name: String,
        /// Compute capability, major part.
        major: i32,
        /// Compute capability, minor part.
        minor: i32,
    },
    /// A tensor's data does not have as many elements as its shape says.
    ElementCount {
        /// The tensor's name (a kernel parameter name, or the constructor that was called).
        tensor: &'static str,
        /// The shape given.
        shape: Vec<usize>,
        /// The number of elements the shape implies.
        expected: usize,
        /// The number of elements given.
        got: usize,
    },
    /// A tensor has a different shape than the operation needs.
    ShapeMismatch {
        /// The tensor or operation concerned.
        tensor: &'static str,
        /// The shape needed.
        expected: Vec<usize>,
        /// The shape given.
        got: Vec<usize>,
    },
    /// The product of a shape's dimensions does not fit in `usize`.
    ShapeTooLarge {
        /// The shape given.
        shape: Vec<usize>,
    },
    /// A tensor passed to a kernel has the wrong number of dimensions.
    ShapeRank {
        /// The kernel parameter.
        tensor: &'static str,
        /// The rank the kernel's signature declares.
        expected: usize,
        /// The shape passed.
        shape: Vec<usize>,
    },
    /// One runtime dimension (e.g. `K`) was read from two tensors with different values.
    DimMismatch {
        /// The dimension's name in the kernel signature.
        dim: &'static str,
        /// (tensor, axis, value) where the dimension was first bound.
        first: (&'static str, usize, usize),
        /// (tensor, axis, value) that disagrees with `first`.
        second: (&'static str, usize, usize),
    },
    /// A runtime dimension is not a multiple of what the kernel needs (e.g. its tile size).
    Divisibility {
        /// The dimension or expression, e.g. `K`.
        dim: &'static str,
        /// Its value at this launch.
        value: usize,
        /// The required divisor.
        divisor: usize,
        /// Why the kernel needs it, e.g. "the loop `for k in 0..K / 64` covers K in 64-wide tiles".
        why: &'static str,
    },
    /// An address or stride violates a hardware alignment rule (TMA needs 16-byte alignment).
    Misaligned {
        /// The tensor concerned.
        tensor: &'static str,
        /// What is misaligned, e.g. "base address" or "stride of axis 0".
        what: String,
        /// The offending value, in bytes.
        value: u64,
        /// The required alignment, in bytes.
        required: u64,
    },
    /// A TMA tensor map cannot describe this tensor or box (checked before the driver is called,
    /// or reported by `cuTensorMapEncodeTiled`).
    TensorMap {
        /// The tensor concerned.
        tensor: &'static str,
        /// The rule that was broken.
        reason: String,
        /// The driver's result, when `cuTensorMapEncodeTiled` was what refused.
        source: Option<DriverError>,
    },
    /// A tensor lives on a different device (context) than the stream it was passed to.
    WrongDevice {
        /// The tensor concerned.
        tensor: &'static str,
        /// The ordinal of the device holding the tensor.
        tensor_device: usize,
        /// The ordinal of the device of the launch stream.
        stream_device: usize,
    },
    /// The driver's JIT compiler rejected the kernel's PTX.
    Jit {
        /// The driver's result, e.g. `CUDA_ERROR_INVALID_PTX`.
        source: DriverError,
        /// The JIT error log (ptxas messages), which says what and where.
        log: String,
    },
    /// An argument is outside what the operation supports (for wrappers around kernels, whose
    /// own conditions the generated launch cannot know, e.g. a head dimension with no kernel).
    InvalidArgument {
        /// The argument concerned.
        argument: &'static str,
        /// What is wrong with it and what is supported.
        reason: String,
    },
    /// A view of part of a device buffer names elements outside it.
    ViewOutOfBounds {
        /// The constructor that was called, e.g. `DeviceTensor::view`.
        view: &'static str,
        /// The first element of the range asked for.
        start: usize,
        /// One past its last element.
        end: usize,
        /// The number of elements of the buffer.
        len: usize,
    },
    /// A view's shape does not have as many elements as its range.
    ViewShape {
        /// The constructor that was called.
        view: &'static str,
        /// The shape given.
        shape: Vec<usize>,
        /// The number of elements the shape implies.
        elements: usize,
        /// The range of the buffer the view covers, as (start, end): `end - start` elements.
        range: (usize, usize),
    },
    /// A view does not start at a 16-byte aligned address, which kernels need for TMA and for
    /// their paired (vector) loads and stores of global arrays.
    ViewMisaligned {
        /// The constructor that was called.
        view: &'static str,
        /// The view's first element, counted from the start of what it was cut from.
        start: usize,
        /// Its device address.
        address: u64,
    },
    /// A device group needs more GPUs than the driver sees.
    NotEnoughDevices {
        /// How many GPUs the group needs.
        needed: usize,
        /// How many CUDA devices the driver sees.
        found: usize,
    },
    /// Two devices of a group cannot map each other's memory (`cuDeviceCanAccessPeer`), or a
    /// device cannot map memory with CUDA virtual memory management at all (then `from == to`).
    NoPeerAccess {
        /// The device that would read or write.
        from: usize,
        /// The device whose memory it would reach.
        to: usize,
    },
    /// A per-rank argument has a different number of values than the group has ranks.
    RankCount {
        /// The argument, e.g. `SymmetricTensor::from_host` or `all_gather send`.
        argument: &'static str,
        /// The number of ranks of the group.
        expected: usize,
        /// The number of values given.
        got: usize,
    },
    /// One rank's tensor has a different shape than rank 0's, where every rank's must agree.
    RankShape {
        /// The argument concerned.
        argument: &'static str,
        /// The rank whose tensor disagrees.
        rank: usize,
        /// Rank 0's shape (or the shape the operation needs).
        expected: Vec<usize>,
        /// This rank's shape.
        got: Vec<usize>,
    },
    /// One rank's tensor lives on another device than the group's device of that rank.
    RankDevice {
        /// The argument concerned.
        argument: &'static str,
        /// The rank.
        rank: usize,
        /// The ordinal of the device holding the tensor.
        tensor_device: usize,
        /// The ordinal of the group's device of this rank.
        rank_device: usize,
    },
    /// A symmetric tensor was allocated for another device group than the one it is used with.
    WrongGroup {
        /// The argument concerned.
        argument: &'static str,
    },
    /// The NCCL library (`libnccl.so.2`) could not be loaded.
    NoNccl,
    /// The loaded NCCL is older than tessel's collectives need.
    NcclTooOld {
        /// `ncclGetVersion`'s code, e.g. `21805` for 2.18.5.
        version: i32,
    },
    /// An NCCL call failed.
    Nccl {
        /// The NCCL call, e.g. `ncclCommInitAll`.
        call: &'static str,
        /// The result's name, e.g. `ncclInvalidUsage`.
        result: String,
        /// NCCL's own description of the last error (`ncclGetLastError`), when it has one.
        detail: String,
    },
    /// A kernel launch was refused before it reached the driver (a bad configuration).
    Launch(String),
    /// The driver refused to prepare or queue a kernel launch (`cuModuleGetFunction`,
    /// `cuFuncSetAttribute` or `cuLaunchKernel` failed).
    LaunchRejected {
        /// What tessel was doing, e.g. "`matmul`" or "the PTX has no kernel named `matmul`".
        reason: String,
        /// The driver's result.
        source: DriverError,
    },
    /// Any other driver call failed (an allocation, a copy, a synchronization ..): the driver's
    /// result, e.g. `CUDA_ERROR_OUT_OF_MEMORY`.
    Driver(DriverError),
    /// The CPU interpreter stopped, e.g. on a deadlock between warpgroups.
    Interpreter(String),
    /// A broken invariant inside tessel; please report it.
    Internal(String),
}

/// `Result` with the runtime's [`Error`] unless another error type is named, so that a glob import
/// of it leaves `Result<(), Box<dyn std::error::Error>>` meaning what it says.
pub type Result<T, E = Error> = std::result::Result<T, E>;

impl Error {
    /// The driver's result behind this error, if a driver call failed (see the type's example).
    pub fn driver_error(&self) -> Option<DriverError> {
        match self {
            Error::Driver(err) | Error::Jit { source: err, .. } | Error::LaunchRejected { source: err, .. } => {
                Some(*err)
            }
            Error::TensorMap { source, .. } => *source,
            _ => None,
        }
    }
}

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Error::NoDriver => f.write_str(
                "the NVIDIA driver library (libcuda) could not be loaded: this machine has no \
                 NVIDIA driver, or it is not on the library path; tessel kernels need an sm_90 \
                 (Hopper) GPU, but their `interpret` function runs on the CPU",
            ),
            Error::DriverTooOld { version } => write!(
                f,
                "the NVIDIA driver supports CUDA {}.{}, but tessel needs CUDA 12.0 or newer \
                 (PTX 8.0 and TMA tensor maps)",
                version / 1000,
                version % 1000 / 10
            ),
            Error::NoDevice { ordinal, count } => {
                write!(f, "there is no CUDA device {ordinal}: the driver sees {count} device(s)")
            }
            Error::UnsupportedDevice { ordinal, name, major, minor } => write!(
                f,
                "tessel kernels need an sm_90 (Hopper) GPU; device {ordinal} is {name} \
                 (sm_{major}{minor})"
            ),
            Error::ElementCount { tensor, shape, expected, got } => {
                write!(f, "`{tensor}`: shape {shape:?} has {expected} elements, but {got} values were given")
            }
            Error::ShapeMismatch { tensor, expected, got } => {
                write!(f, "`{tensor}`: expected shape {expected:?}, got {got:?}")
            }
            Error::ShapeTooLarge { shape } => {
                write!(f, "shape {shape:?} has more elements than fit in usize")
            }
            Error::ShapeRank { tensor, expected, shape } => {
                write!(f, "`{tensor}` must have rank {expected}, but its shape is {shape:?} (rank {})", shape.len())
            }
            Error::DimMismatch { dim, first, second } => write!(
                f,
                "runtime dimension {dim} is {} from `{}` (axis {}) but {} from `{}` (axis {})",
                first.2, first.0, first.1, second.2, second.0, second.1
            ),
            Error::Divisibility { dim, value, divisor, why } => {
                write!(f, "runtime dimension {dim} = {value} must be a multiple of {divisor}: {why}")
            }
            Error::Misaligned { tensor, what, value, required } => write!(
                f,
                "`{tensor}`: {what} is {value} bytes ({value:#x}), not a multiple of {required} \
                 bytes, as TMA requires"
            ),
            Error::TensorMap { tensor, reason, .. } => {
                write!(f, "cannot build a TMA tensor map for `{tensor}`: {reason}")
            }
            Error::WrongDevice { tensor, tensor_device, stream_device } => write!(
                f,
                "`{tensor}` lives on device {tensor_device}, but the launch stream is on device \
                 {stream_device}"
            ),
            Error::Jit { source, log } => {
                write!(f, "the CUDA driver could not compile the kernel's PTX: {}", describe(*source))?;
                if log.is_empty() {
                    f.write_str("; the JIT log is empty")
                } else {
                    write!(f, "\n{log}")
                }
            }
            Error::InvalidArgument { argument, reason } => write!(f, "`{argument}`: {reason}"),
            Error::ViewOutOfBounds { view, start, end, len } if start > end => {
                write!(f, "`{view}`: the range {start}..{end} starts after it ends (the buffer has {len} elements)")
            }
            Error::ViewOutOfBounds { view, start, end, len } => {
                write!(f, "`{view}`: elements {start}..{end} are outside the buffer, which has {len} elements")
            }
            Error::ViewShape { view, shape, elements, range: (start, end) } => write!(
                f,
                "`{view}`: shape {shape:?} has {elements} elements, but the range {start}..{end} holds {}",
                end.saturating_sub(*start)
            ),
            Error::ViewMisaligned { view, start, address } => write!(
                f,
                "`{view}`: a view must start at a 16-byte aligned address (kernels read global \
                 arrays with TMA and paired loads), but element {start} is at {address:#x}"
            ),
            Error::NotEnoughDevices { needed, found } => {
                write!(f, "this needs {needed} GPU{}, but the driver sees {found}", if *needed == 1 { "" } else { "s" })
            }
            Error::NoPeerAccess { from, to } if from == to => write!(
                f,
                "device {from} does not support CUDA virtual memory management (cuMemCreate, \
                 cuMemMap), which symmetric tensors need"
            ),
            Error::NoPeerAccess { from, to } => write!(
                f,
                "device {from} cannot access the memory of device {to} (cuDeviceCanAccessPeer \
                 says no: they share no NVLink or PCIe peer path), so they cannot be in one \
                 device group"
            ),
            Error::RankCount { argument, expected, got } => write!(
                f,
                "`{argument}`: the group has {expected} rank(s), so it takes one value per rank, \
                 but {got} were given"
            ),
            Error::RankShape { argument, rank, expected, got } => write!(
                f,
                "`{argument}`: rank {rank}'s tensor has shape {got:?}, but every rank's must be \
                 {expected:?}"
            ),
            Error::RankDevice { argument, rank, tensor_device, rank_device } => write!(
                f,
                "`{argument}`: rank {rank}'s tensor lives on device {tensor_device}, but rank \
                 {rank} of the group is device {rank_device}"
            ),
            Error::WrongGroup { argument } => {
                write!(f, "`{argument}` was allocated for another device group than the one it is used with")
            }
            Error::NoNccl => f.write_str(
                "the NCCL library (libnccl.so.2) could not be loaded: install NCCL (e.g. the \
                 `libnccl2` package or the `nvidia-nccl-cu12` wheel) and put it on the library \
                 path; collectives need it, symmetric tensors and kernels do not",
            ),
            Error::NcclTooOld { version } => write!(
                f,
                "the loaded NCCL is version {}, but tessel's collectives need {} or newer",
                crate::group::nccl_version_text(*version),
                crate::group::nccl_version_text(crate::group::MIN_NCCL_VERSION)
            ),
            Error::Nccl { call, result, detail } => {
                write!(f, "NCCL error in {call}: {result}")?;
                if detail.is_empty() {
                    Ok(())
                } else {
                    write!(f, " ({detail})")
                }
            }
            Error::Launch(msg) => write!(f, "kernel launch failed: {msg}"),
            Error::LaunchRejected { reason, source } => {
                write!(f, "kernel launch failed: {reason}: {}", describe(*source))
            }
            Error::Driver(err) => write!(f, "CUDA driver error: {}", describe(*err)),
            Error::Interpreter(msg) => write!(f, "interpreter: {msg}"),
            Error::Internal(msg) => {
                write!(f, "internal tessel error: {msg} (this is a bug in tessel; please report it)")
            }
        }
    }
}

/// `Debug` writes the message, as `Display` does, so that `fn main() -> tessel::Result<()>` ends
/// with "Error: no NVIDIA driver ..." rather than a variant's name; match on the variant (or
/// [`Error::driver_error`]) for the structure.
impl fmt::Debug for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Display::fmt(self, f)
    }
}

/// The driver's result is the source of every error a driver call caused, so that a caller can
/// walk the chain to it (or use [`Error::driver_error`]).
impl std::error::Error for Error {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        match self {
            Error::Driver(err) | Error::Jit { source: err, .. } | Error::LaunchRejected { source: err, .. } => {
                Some(err)
            }
            Error::TensorMap { source: Some(err), .. } => Some(err),
            _ => None,
        }
    }
}

impl From<DriverError> for Error {
    fn from(err: DriverError) -> Self {
        Error::Driver(err)
    }
}

/// The name and description of a driver result, e.g.
/// `CUDA_ERROR_ILLEGAL_ADDRESS (an illegal memory access was encountered)`.
///
/// The name is the `CUresult` variant's (the same text `cuGetErrorName` returns); the description
/// comes from `cuGetErrorString`, asked only when libcuda loads, since cudarc panics without it
/// (and a `DriverError` can be made by hand on a machine without a driver).
pub(crate) fn describe(err: DriverError) -> String {
    let name = format!("{:?}", err.0);
    if !driver::library_present() {
        return name;
    }
    match err.error_string() {
        Ok(text) => format!("{name} ({})", text.to_string_lossy()),
        Err(_) => name,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use cudarc::driver::sys::CUresult;
    use std::error::Error as _;

    const OOM: DriverError = DriverError(CUresult::CUDA_ERROR_OUT_OF_MEMORY);

    /// The chain from each error a driver call caused down to the driver's result.
    #[test]
    fn driver_failures_keep_the_result_as_their_source() {
        let errors = [
            Error::from(OOM),
            Error::Jit { source: OOM, log: String::new() },
            Error::LaunchRejected { reason: "`matmul`".into(), source: OOM },
            Error::TensorMap { tensor: "a", reason: "rejected".into(), source: Some(OOM) },
        ];
        for err in errors {
            let source = err.source().unwrap_or_else(|| panic!("{err} has no source"));
            assert_eq!(source.downcast_ref::<DriverError>(), Some(&OOM), "{err}");
            assert_eq!(err.driver_error(), Some(OOM), "{err}");
        }
    }

    #[test]
    fn other_failures_have_no_source() {
        let errors = [
            Error::NoDriver,
            Error::Launch("`k`: the grid is [0, 1, 1]".into()),
            Error::TensorMap { tensor: "a", reason: "box too large".into(), source: None },
            Error::ViewOutOfBounds { view: "DeviceTensor::view", start: 0, end: 9, len: 8 },
        ];
        for err in errors {
            assert!(err.source().is_none(), "{err}");
            assert_eq!(err.driver_error(), None, "{err}");
        }
    }

    /// The messages name the driver's result; without libcuda (as here, on CI) they cannot ask the
    /// driver for its description, and must not panic trying.
    #[test]
    fn driver_messages_name_the_result() {
        let text = Error::from(OOM).to_string();
        assert!(text.starts_with("CUDA driver error: CUDA_ERROR_OUT_OF_MEMORY"), "{text}");
        let text = Error::LaunchRejected { reason: "`matmul`".into(), source: OOM }.to_string();
        assert!(text.starts_with("kernel launch failed: `matmul`: CUDA_ERROR_OUT_OF_MEMORY"), "{text}");
        let jit = Error::Jit { source: DriverError(CUresult::CUDA_ERROR_INVALID_PTX), log: "line 3: bad".into() };
        let text = jit.to_string();
        assert!(text.starts_with("the CUDA driver could not compile the kernel's PTX: CUDA_ERROR_INVALID_PTX"));
        assert!(text.ends_with("\nline 3: bad"), "{text}");
    }

    /// `Result` defaults its error to [`Error`], and takes another when named.
    #[test]
    fn result_defaults_to_the_runtime_error() {
        fn tessel() -> Result<u8> {
            Err(Error::NoDriver)
        }
        fn boxed() -> Result<u8, Box<dyn std::error::Error>> {
            Ok(tessel()?)
        }
        let err = boxed().unwrap_err();
        assert!(matches!(err.downcast_ref::<Error>(), Some(Error::NoDriver)), "{err}");
    }
}
