//! Loading NCCL: the probe that must answer before any cudarc NCCL call, the version check, and
//! the conversion of NCCL's results into [`Error::Nccl`].
//!
//! cudarc loads `libnccl` at its first NCCL call (`dynamic-loading`, as for libcuda) and *panics*
//! when the library is missing, so [`loaded_version`] is the gate every entry point passes first.

use std::ffi::{c_char, CStr};
use std::sync::OnceLock;

use cudarc::nccl::result::{self, NcclError};
use cudarc::nccl::sys;

use crate::error::{Error, Result};

/// The oldest NCCL the collectives accept: 2.13 added `ncclGetLastError`, whose text the errors
/// carry. (`ncclGetVersion` codes are `major * 10000 + minor * 100 + patch` since 2.9.)
pub(crate) const MIN_NCCL_VERSION: i32 = 21300;

/// `21805` as `2.18.5`.
pub(crate) fn nccl_version_text(code: i32) -> String {
    format!("{}.{}.{}", code / 10000, code / 100 % 100, code % 100)
}

/// Whether libnccl can be loaded, probed with the library names cudarc will try. Cached.
fn library_present() -> bool {
    static PRESENT: OnceLock<bool> = OnceLock::new();
    *PRESENT.get_or_init(|| {
        // Safety: `is_culib_present` `dlopen`s and closes libnccl; its initialisers are sound to
        // run. Some cudarc 0.19 releases resolve every symbol of their NCCL headers while probing
        // and panic when an older NCCL lacks one: that NCCL is as unusable as a missing one.
        std::panic::catch_unwind(|| unsafe { sys::is_culib_present() }).unwrap_or(false)
    })
}

/// The loaded NCCL's version code (`ncclGetVersion`), or [`Error::NoNccl`] when the library does
/// not load and [`Error::NcclTooOld`] when it predates [`MIN_NCCL_VERSION`].
pub(crate) fn loaded_version() -> Result<i32> {
    if !library_present() {
        return Err(Error::NoNccl);
    }
    let version = result::get_nccl_version().map_err(|err| {
        // Safety: `ncclGetErrorString` (in every NCCL 2) returns a static string or null.
        let detail = unsafe { text(sys::ncclGetErrorString(err.0)) };
        Error::Nccl { call: "ncclGetVersion", result: format!("{:?}", err.0), detail }
    })?;
    if version < MIN_NCCL_VERSION {
        return Err(Error::NcclTooOld { version });
    }
    Ok(version)
}

/// The version of the NCCL library tessel's collectives would use, as `(major, minor, patch)`,
/// e.g. `(2, 21, 5)`. Cheap after the first call; [`Error::NoNccl`] when `libnccl.so.2` cannot be
/// loaded (a machine without NCCL, or without it on the library path), [`Error::NcclTooOld`] for
/// NCCL older than 2.13.
pub fn nccl_version() -> Result<(u32, u32, u32)> {
    let code = loaded_version()?.unsigned_abs();
    Ok((code / 10000, code / 100 % 100, code % 100))
}

/// [`Error::Nccl`] for a failed `call`: the result's name and NCCL's own text, the last error of
/// `comm` when there is one (`ncclGetLastError`) or else the result's description
/// (`ncclGetErrorString`). Needs [`loaded_version`] to have succeeded (`ncclGetLastError` is
/// NCCL 2.13's).
pub(super) fn nccl_error(call: &'static str, err: NcclError, comm: Option<sys::ncclComm_t>) -> Error {
    let result = format!("{:?}", err.0);
    // Safety: both return a static, NUL-terminated string owned by NCCL (or null); a null `comm`
    // asks for the last error of any communicator.
    let detail = unsafe {
        let last = text(sys::ncclGetLastError(comm.unwrap_or(std::ptr::null_mut())));
        if last.is_empty() {
            text(sys::ncclGetErrorString(err.0))
        } else {
            last
        }
    };
    Error::Nccl { call, result, detail }
}

/// The text of a C string NCCL returned.
///
/// # Safety
/// `ptr` is null or points at a NUL-terminated string that outlives the call.
unsafe fn text(ptr: *const c_char) -> String {
    if ptr.is_null() {
        return String::new();
    }
    // Safety: forwarded from this function's contract.
    unsafe { CStr::from_ptr(ptr) }.to_string_lossy().trim().to_string()
}

#[cfg(test)]
mod tests {
    use super::*;

    /// This machine has no NCCL (as CI machines): asking is an error, not a panic, and says what
    /// to install.
    #[test]
    fn a_missing_nccl_is_a_clear_error() {
        if library_present() {
            return; // A machine with NCCL: the facade's GPU tests use it.
        }
        let err = nccl_version().unwrap_err();
        assert!(matches!(err, Error::NoNccl), "{err}");
        let text = err.to_string();
        assert!(text.contains("libnccl.so.2"), "{text}");
        assert!(matches!(loaded_version(), Err(Error::NoNccl)));
    }

    #[test]
    fn versions_read_as_releases() {
        assert_eq!(nccl_version_text(21805), "2.18.5");
        assert_eq!(nccl_version_text(MIN_NCCL_VERSION), "2.13.0");
        let text = Error::NcclTooOld { version: 21105 }.to_string();
        assert_eq!(text, "the loaded NCCL is version 2.11.5, but tessel's collectives need 2.13.0 or newer");
    }

    #[test]
    fn nccl_failures_name_the_call_and_result() {
        let err = Error::Nccl { call: "ncclAllGather", result: "ncclInvalidUsage".into(), detail: String::new() };
        assert_eq!(err.to_string(), "NCCL error in ncclAllGather: ncclInvalidUsage");
        let err = Error::Nccl { call: "ncclCommInitAll", result: "ncclSystemError".into(), detail: "no shm".into() };
        assert_eq!(err.to_string(), "NCCL error in ncclCommInitAll: ncclSystemError (no shm)");
    }
}
