//! Loaded kernels: a CUDA module JIT-compiled from a kernel's PTX, and the kernel's function.

use std::collections::HashMap;
use std::fmt;
use std::sync::{Arc, LazyLock, Mutex, PoisonError};

use cudarc::driver::{sys, CudaContext};

use crate::device::AsStream;
use crate::driver;
use crate::error::{Error, Result};
use crate::ptx::Ptx;

/// Dynamic shared memory a kernel may use without opting in (CUDA C++ Programming Guide,
/// "Shared Memory": allocations above 48 KB need the opt-in attribute).
pub const DEFAULT_DYNAMIC_SMEM: u32 = 48 * 1024;

/// The most dynamic shared memory one block may opt into on sm_90 (227 KiB,
/// `CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK_OPTIN` on the H100/H200).
pub const MAX_DYNAMIC_SMEM: u32 = 232_448;

/// A kernel loaded on one context: its CUDA module, its function, and the JIT's info log.
///
/// Load it with [`Module::load`], which JIT-compiles the PTX once per context and process.
pub struct Module {
    // Keeps the context (and so the module inside it) alive for as long as the module is used.
    context: Arc<CudaContext>,
    module: sys::CUmodule,
    function: sys::CUfunction,
    entry: String,
    info_log: String,
    /// The dynamic shared memory the function has been allowed so far; the mutex also keeps two
    /// threads from lowering each other's grant.
    smem_granted: Mutex<u32>,
}

// Safety: `CUmodule` and `CUfunction` are driver handles, not Rust data; the driver API is thread
// safe, and every call through them first makes the owning context current (see `driver`).
unsafe impl Send for Module {}
// Safety: as for `Send`; the only mutable state (`smem_granted`) is behind a mutex.
unsafe impl Sync for Module {}

/// Cache key: the context and the identity of the PTX (`Ptx::identity`), plus the entry point.
type ModuleKey = (usize, (usize, usize), String);

/// Every module loaded through [`Module::load`]. Entries live until the process exits: launch
/// functions call `load` on every launch, so it must be a lookup after the first.
static MODULES: LazyLock<Mutex<HashMap<ModuleKey, Arc<Module>>>> = LazyLock::new(Default::default);

impl Module {
    /// The kernel `entry` of `ptx` (a kernel's `PTX`, or a `&'static str`), loaded on the context
    /// of `stream`. The first call per context JIT-compiles the PTX (`cuModuleLoadDataEx`),
    /// inflating a kernel's compressed PTX first; later calls return the same module.
    pub fn load(stream: &impl AsStream, ptx: impl Into<Ptx>, entry: &str) -> Result<Arc<Module>> {
        let ptx = ptx.into();
        let context = stream.as_stream().context();
        let key = (context.cu_ctx() as usize, ptx.identity(), entry.to_string());
        // Held across the JIT so two threads never compile the same module twice.
        let mut modules = MODULES.lock().unwrap_or_else(PoisonError::into_inner);
        if let Some(module) = modules.get(&key) {
            return Ok(Arc::clone(module));
        }
        let module = Arc::new(Module::load_uncached(context, ptx.text()?, entry)?);
        modules.insert(key, Arc::clone(&module));
        Ok(module)
    }

    /// JIT-compiles `ptx` on `context` and looks up `entry`, bypassing the cache (for tests
    /// that want a fresh JIT log).
    pub fn load_uncached(context: &Arc<CudaContext>, ptx: &str, entry: &str) -> Result<Module> {
        let (module, info_log) = driver::module_load_with_log(context, ptx)?;
        let function = match driver::module_get_function(context, module, entry) {
            Ok(function) => function,
            Err(err) => {
                // The module is unusable without its entry; unloading is best effort.
                context.record_err(driver::module_unload(context, module));
                return Err(err);
            }
        };
        Ok(Module {
            context: Arc::clone(context),
            module,
            function,
            entry: entry.to_string(),
            info_log,
            smem_granted: Mutex::new(DEFAULT_DYNAMIC_SMEM),
        })
    }

    /// The JIT's verbose info log: ptxas's register and spill report and its warnings. Tests
    /// assert it has no `C75..` line (a wgmma pipeline serialized, checked on the H200).
    pub fn info_log(&self) -> &str {
        &self.info_log
    }

    /// The kernel's entry name.
    pub fn entry(&self) -> &str {
        &self.entry
    }

    /// The context the module is loaded on.
    pub fn context(&self) -> &Arc<CudaContext> {
        &self.context
    }

    pub(crate) fn function(&self) -> sys::CUfunction {
        self.function
    }

    /// Makes sure launches may use `bytes` of dynamic shared memory: above 48 KiB the function
    /// must opt in with `CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES`, which is set once
    /// (and raised if a later launch asks for more).
    pub(crate) fn ensure_dynamic_smem(&self, bytes: u32) -> Result<()> {
        if bytes <= DEFAULT_DYNAMIC_SMEM {
            return Ok(());
        }
        if bytes > MAX_DYNAMIC_SMEM {
            return Err(Error::Launch(format!(
                "`{}` asks for {bytes} bytes of dynamic shared memory, but an sm_90 block can \
                 have at most {MAX_DYNAMIC_SMEM}",
                self.entry
            )));
        }
        let mut granted = self.smem_granted.lock().unwrap_or_else(PoisonError::into_inner);
        if *granted >= bytes {
            return Ok(());
        }
        driver::set_max_dynamic_smem(&self.context, self.function, bytes).map_err(|source| Error::LaunchRejected {
            reason: format!(
                "cannot allow `{}` {bytes} bytes of dynamic shared memory (its static shared \
                     memory counts against the same {MAX_DYNAMIC_SMEM}-byte limit)",
                self.entry
            ),
            source,
        })?;
        *granted = bytes;
        Ok(())
    }
}

impl Drop for Module {
    fn drop(&mut self) {
        // Never panics: a failure is recorded on the context, where cudarc reports it from the
        // next call (the convention of cudarc's own `Drop`s).
        self.context.record_err(driver::module_unload(&self.context, self.module));
    }
}

impl fmt::Debug for Module {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Module")
            .field("entry", &self.entry)
            .field("device", &self.context.ordinal())
            .finish_non_exhaustive()
    }
}
