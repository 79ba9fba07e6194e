//! The one error type of the runtime.
//!
//! Every failure of a launch, a copy, a tensor map or the driver is an [`Error`]; the runtime never
//! panics on user input. Each variant carries what the user needs to fix the call (the tensor, the
//! axis, the value and the rule it broke), and its `Display` says it in one sentence.

use std::fmt;

use cudarc::driver::DriverError;

/// A runtime failure: bad launch arguments, a missing or unsupported GPU, or a driver error.
#[derive(Debug, Clone, PartialEq, Eq)]
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
        /// The driver's error name and description, e.g.
        /// `CUDA_ERROR_INVALID_PTX (a PTX JIT compilation failed)`.
        code: String,
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
    /// A kernel launch was refused (bad configuration, or `cuLaunchKernel` failed).
    Launch(String),
    /// Any other driver call failed; the text is the driver's error name and description.
    Driver(String),
    /// The CPU interpreter stopped, e.g. on a deadlock between warpgroups.
    Interpreter(String),
    /// A broken invariant inside tessel; please report it.
    Internal(String),
}

/// `Result` with the runtime's [`Error`].
pub type Result<T> = std::result::Result<T, Error>;

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
            Error::TensorMap { tensor, reason } => {
                write!(f, "cannot build a TMA tensor map for `{tensor}`: {reason}")
            }
            Error::WrongDevice { tensor, tensor_device, stream_device } => write!(
                f,
                "`{tensor}` lives on device {tensor_device}, but the launch stream is on device \
                 {stream_device}"
            ),
            Error::Jit { code, log } => {
                write!(f, "the CUDA driver could not compile the kernel's PTX: {code}")?;
                if log.is_empty() {
                    f.write_str("; the JIT log is empty")
                } else {
                    write!(f, "\n{log}")
                }
            }
            Error::InvalidArgument { argument, reason } => write!(f, "`{argument}`: {reason}"),
            Error::Launch(msg) => write!(f, "kernel launch failed: {msg}"),
            Error::Driver(msg) => write!(f, "CUDA driver error: {msg}"),
            Error::Interpreter(msg) => write!(f, "interpreter: {msg}"),
            Error::Internal(msg) => {
                write!(f, "internal tessel error: {msg} (this is a bug in tessel; please report it)")
            }
        }
    }
}

impl std::error::Error for Error {}

impl From<DriverError> for Error {
    fn from(err: DriverError) -> Self {
        Error::Driver(describe(err))
    }
}

/// The driver's name and description of an error, e.g.
/// `CUDA_ERROR_ILLEGAL_ADDRESS (an illegal memory access was encountered)`.
pub(crate) fn describe(err: DriverError) -> String {
    let name = err.error_name().map(|s| s.to_string_lossy().into_owned()).unwrap_or_else(|_| format!("{:?}", err.0));
    match err.error_string() {
        Ok(text) => format!("{name} ({})", text.to_string_lossy()),
        Err(_) => name,
    }
}
