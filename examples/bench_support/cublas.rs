//! The baselines: cuBLAS (`cublasGemmEx` through cudarc's `Gemm`) and cuBLASLt (through cudarc's
//! `result` layer, so that descriptors and the algorithm are chosen once, not on every launch as
//! cudarc's safe `Matmul` does).
//!
//! cudarc loads libcublas and libcublasLt at run time and panics when it cannot; every first use
//! here goes through [`guarded`], and [`preload`] looks in the usual places before giving up.

use std::any::Any;
use std::ffi::{c_void, CString};
use std::os::unix::ffi::OsStrExt;
use std::panic::{self, AssertUnwindSafe};
use std::path::{Path, PathBuf};

use cudarc::cublas::sys::cublasOperation_t;
use cudarc::cublas::{CudaBlas, GemmConfig};
use cudarc::cublaslt::{result as lt, sys as lt_sys};
use cudarc::driver::{CudaSlice, CudaStream, DevicePtr};
use tessel::{Device, HostTensor};

use crate::timing::{time_median, Op};
use crate::{Dtype, Res, Set, Shape};

/// Algorithms asked of cuBLASLt's heuristic; each is timed briefly and the fastest kept.
const LT_ALGOS: usize = 8;
/// Launches per algorithm in that trial (after 3 warm-ups).
const LT_TRIAL_RUNS: usize = 10;
/// cuBLASLt's workspace: NVIDIA's recommendation for Hopper (cudarc's `Workspace` uses the same).
const LT_WORKSPACE: usize = 32 << 20;

/// The cuBLAS handles, or why each could not be opened.
pub struct Baselines {
    blas: Result<CudaBlas, String>,
    lt: Result<Lt, String>,
}

impl Baselines {
    /// Loads the libraries and opens both handles on the device's stream; prints what happened.
    pub fn open(dev: &Device) -> Baselines {
        let loaded = preload();
        let blas = loaded.clone().and_then(|()| guarded(|| Ok(CudaBlas::new(dev.stream().clone())?)));
        let lt = loaded.and_then(|()| guarded(|| Lt::new(dev.stream())));
        for (name, handle) in [("cuBLAS", blas.as_ref().err()), ("cuBLASLt", lt.as_ref().err())] {
            match handle {
                None => println!("{name}: loaded"),
                Some(why) => println!("{name}: NOT AVAILABLE, tessel is measured alone: {why}"),
            }
        }
        Baselines { blas, lt }
    }

    /// One `cublasGemmEx` over NaN-poisoned C, copied back.
    pub fn gemm_once<T: Dtype>(&self, shape: Shape, set: &mut Set<T>) -> Result<HostTensor<T>, String> {
        let blas = self.blas.as_ref().map_err(|_| "not loaded".to_string())?;
        guarded(|| {
            set.c.poison(T::from_f64(f64::NAN))?;
            gemm(blas, shape, set)?;
            Ok(set.c.to_host()?)
        })
    }

    /// One cuBLASLt matmul (the heuristic's first algorithm) over NaN-poisoned C, copied back.
    pub fn lt_once<T: Dtype>(&self, dev: &Device, shape: Shape, set: &mut Set<T>) -> Result<HostTensor<T>, String> {
        let lt = self.lt.as_ref().map_err(|_| "not loaded".to_string())?;
        guarded(|| {
            let plan = LtPlan::new::<T>(lt, shape)?;
            set.c.poison(T::from_f64(f64::NAN))?;
            plan.run(dev.stream(), 0, set)?;
            Ok(set.c.to_host()?)
        })
    }

    /// `cublasGemmEx` as a contender, after one guarded trial run on `set` (cudarc panics on a
    /// missing symbol; the timed rounds must not).
    pub fn gemm_op<'a, T: Dtype>(&'a self, shape: Shape, set: &mut Set<T>) -> Result<(Op<'a, Set<T>>, String), String> {
        let blas = self.blas.as_ref().map_err(|_| "cublas: not loaded".to_string())?;
        guarded(|| gemm(blas, shape, set)).map_err(|why| format!("cublas: {why}"))?;
        Ok((Box::new(move |set: &mut Set<T>| gemm(blas, shape, set)), "cublas".to_string()))
    }

    /// cuBLASLt as a contender, with the fastest of its heuristic's first algorithms (each timed
    /// briefly on `sets`), and which algorithm that is.
    pub fn lt_op<'a, T: Dtype>(
        &'a self,
        dev: &'a Device,
        shape: Shape,
        sets: &mut [Set<T>],
    ) -> Result<(Op<'a, Set<T>>, String), String> {
        let lt = self.lt.as_ref().map_err(|_| "cublasLt: not loaded".to_string())?;
        let chosen = guarded(|| {
            let plan = LtPlan::new::<T>(lt, shape)?;
            let mut best: Option<(f64, usize)> = None;
            for algo in 0..plan.algos.len() {
                // An algorithm that fails to launch is skipped, not fatal.
                let trial = time_median(dev, LT_TRIAL_RUNS, 3, sets, |set| plan.run(dev.stream(), algo, set));
                if let Ok(ms) = trial {
                    best = best.filter(|b| b.0 <= ms).or(Some((ms, algo)));
                }
            }
            let (_, algo) = best.ok_or("no algorithm of the heuristic ran")?;
            Ok((plan, algo))
        });
        let (plan, algo) = chosen.map_err(|why| format!("cublasLt: {why}"))?;
        let name = format!("cublasLt algo {}/{}", algo + 1, plan.algos.len());
        Ok((Box::new(move |set: &mut Set<T>| plan.run(dev.stream(), algo, set)), name))
    }
}

/// Row-major C = A @ B as column-major C^T = B^T A^T: cuBLAS's first operand is B (module doc of
/// `bench_matmul`).
fn gemm<T: Dtype>(blas: &CudaBlas, shape: Shape, set: &mut Set<T>) -> Res<()> {
    let Shape { m, n, k } = shape;
    let cfg = GemmConfig {
        transa: cublasOperation_t::CUBLAS_OP_N,
        transb: cublasOperation_t::CUBLAS_OP_N,
        m: i32::try_from(n)?,
        n: i32::try_from(m)?,
        k: i32::try_from(k)?,
        alpha: T::from_f64(1.0),
        lda: i32::try_from(n)?,
        ldb: i32::try_from(k)?,
        beta: T::from_f64(0.0),
        ldc: i32::try_from(n)?,
    };
    // Safety: B is K x N row-major (N x K column-major, ld N), A is M x K (K x M, ld K) and C is
    // M x N (N x M, ld N): each buffer holds exactly the matrix `cfg` describes.
    unsafe { T::gemm(blas, cfg, set.b.as_slice(), set.a.as_slice(), set.c.as_slice_mut()) }
}

/// A cuBLASLt handle and its workspace.
pub struct Lt {
    handle: lt_sys::cublasLtHandle_t,
    workspace: CudaSlice<u8>,
}

impl Lt {
    fn new(stream: &std::sync::Arc<CudaStream>) -> Res<Lt> {
        stream.context().bind_to_thread()?;
        let workspace = stream.alloc_zeros::<u8>(LT_WORKSPACE)?;
        Ok(Lt { handle: lt::create_handle()?, workspace })
    }
}

impl Drop for Lt {
    fn drop(&mut self) {
        // Safety: the handle was created in `new` and is destroyed once. A failure is ignored:
        // `Drop` must not panic, and the process is ending anyway.
        let _ = unsafe { lt::destroy_handle(self.handle) };
    }
}

/// One cuBLASLt problem: its descriptors and the algorithms the heuristic proposed for it. Null
/// handles are ones not created yet (`new` fills them in order; `Drop` frees what exists).
pub struct LtPlan<'a> {
    lt: &'a Lt,
    desc: lt_sys::cublasLtMatmulDesc_t,
    /// cuBLASLt's A, B and C: our B, A and C (see [`gemm`]).
    layouts: [lt_sys::cublasLtMatrixLayout_t; 3],
    pref: lt_sys::cublasLtMatmulPreference_t,
    pub algos: Vec<lt_sys::cublasLtMatmulAlgo_t>,
}

impl<'a> LtPlan<'a> {
    /// Describes C = A @ B for `shape` in `T` with f32 compute and scale, and asks the heuristic
    /// for up to `LT_ALGOS` algorithms that fit the workspace.
    pub fn new<T: Dtype>(lt: &'a Lt, shape: Shape) -> Res<LtPlan<'a>> {
        let mut plan = LtPlan {
            lt,
            desc: std::ptr::null_mut(),
            layouts: [std::ptr::null_mut(); 3],
            pref: std::ptr::null_mut(),
            algos: Vec::new(),
        };
        let Shape { m, n, k } = shape;
        let (m, n, k) = (m as u64, n as u64, k as u64);
        plan.desc = lt::create_matmul_desc(
            lt_sys::cublasComputeType_t::CUBLAS_COMPUTE_32F,
            lt_sys::cudaDataType_t::CUDA_R_32F,
        )?;
        // Column-major (rows, cols, ld); transposes stay at their default, N.
        for (slot, (rows, cols)) in plan.layouts.iter_mut().zip([(n, k), (k, m), (n, m)]) {
            *slot = lt::create_matrix_layout(T::LT_TYPE, rows, cols, rows as i64)?;
        }
        plan.pref = lt::create_matmul_pref()?;
        let size = LT_WORKSPACE;
        let attr = lt_sys::cublasLtMatmulPreferenceAttributes_t::CUBLASLT_MATMUL_PREF_MAX_WORKSPACE_BYTES;
        // Safety: the attribute is a `uint64_t` (cuBLASLt docs); `size` is a live `usize`, 64 bits here.
        let bytes = std::mem::size_of::<usize>();
        unsafe { lt::set_matmul_pref_attribute(plan.pref, attr, (&size as *const usize).cast(), bytes) }?;
        plan.algos = plan.heuristic()?;
        Ok(plan)
    }

    /// Up to `LT_ALGOS` algorithms, best first by the heuristic's estimate.
    fn heuristic(&self) -> Res<Vec<lt_sys::cublasLtMatmulAlgo_t>> {
        // Safety: the result struct is plain data (an array of u64, integers, a float and a status
        // enum whose 0 is SUCCESS), so all zeros is a valid value.
        let mut results: [lt_sys::cublasLtMatmulHeuristicResult_t; LT_ALGOS] = unsafe { std::mem::zeroed() };
        let mut count = 0;
        let [a, b, c] = self.layouts;
        // Safety: every descriptor is live (created in `new`); `results` has room for `LT_ALGOS`.
        unsafe {
            lt_sys::cublasLtMatmulAlgoGetHeuristic(
                self.lt.handle,
                self.desc,
                a,
                b,
                c,
                c,
                self.pref,
                LT_ALGOS as i32,
                results.as_mut_ptr(),
                &mut count,
            )
        }
        .result()?;
        let ok = lt_sys::cublasStatus_t::CUBLAS_STATUS_SUCCESS;
        let usable = results.iter().take(count.max(0) as usize);
        let algos: Vec<_> =
            usable.filter(|r| r.state == ok && r.workspaceSize <= LT_WORKSPACE).map(|r| r.algo).collect();
        if algos.is_empty() {
            return Err("the heuristic proposed no algorithm".into());
        }
        Ok(algos)
    }

    /// Queues D = C = A @ B with algorithm `algo` on `stream` (the handle's device's stream).
    pub fn run<T: Dtype>(&self, stream: &CudaStream, algo: usize, set: &mut Set<T>) -> Res<()> {
        let (alpha, beta) = (1.0f32, 0.0f32);
        let (a, _a) = set.b.device_ptr(stream);
        let (b, _b) = set.a.device_ptr(stream);
        let (c, _c) = set.c.device_ptr_mut(stream);
        let (workspace, _w) = self.lt.workspace.device_ptr(stream);
        let [a_layout, b_layout, c_layout] = self.layouts;
        // Safety: the layouts describe exactly the buffers behind `a`, `b` and `c` (see `new`),
        // whose guards live until after the call; alpha and beta are host f32s, as the f32 scale
        // type asks; the algorithm came from the heuristic for these descriptors and needs no more
        // workspace than `LT_WORKSPACE`, which the workspace buffer holds.
        unsafe {
            lt::matmul(
                self.lt.handle,
                self.desc,
                (&alpha as *const f32).cast(),
                (&beta as *const f32).cast(),
                a as *const c_void,
                a_layout,
                b as *const c_void,
                b_layout,
                c as *const c_void,
                c_layout,
                c as *mut c_void,
                c_layout,
                &self.algos[algo],
                workspace as *mut c_void,
                LT_WORKSPACE,
                stream.cu_stream() as lt_sys::cudaStream_t,
            )
        }?;
        Ok(())
    }
}

impl Drop for LtPlan<'_> {
    fn drop(&mut self) {
        // Safety: each non-null handle was created by `new` and is destroyed once; failures are
        // ignored because `Drop` must not panic.
        unsafe {
            if !self.pref.is_null() {
                let _ = lt::destroy_matmul_pref(self.pref);
            }
            for &layout in self.layouts.iter().filter(|l| !l.is_null()) {
                let _ = lt::destroy_matrix_layout(layout);
            }
            if !self.desc.is_null() {
                let _ = lt::destroy_matmul_desc(self.desc);
            }
        }
    }
}

/// Runs `f`, turning a panic into an error: cudarc's lazily loaded bindings panic when a library
/// or a symbol is missing. The default panic message is silenced meanwhile; ours says what to do.
pub fn guarded<R>(f: impl FnOnce() -> Res<R>) -> Result<R, String> {
    let hook = panic::take_hook();
    panic::set_hook(Box::new(|_| {}));
    let outcome = panic::catch_unwind(AssertUnwindSafe(f));
    panic::set_hook(hook);
    match outcome {
        Ok(result) => result.map_err(|err| err.to_string()),
        Err(payload) => Err(format!("panicked: {}", panic_text(payload.as_ref()))),
    }
}

fn panic_text(payload: &(dyn Any + Send)) -> String {
    match (payload.downcast_ref::<String>(), payload.downcast_ref::<&str>()) {
        (Some(text), _) => text.clone(),
        (None, Some(text)) => text.to_string(),
        (None, None) => "(no message)".to_string(),
    }
}

/// Makes sure cudarc will find libcublas and libcublasLt. If they are not on the loader's path,
/// loads them by full path from the CUDA toolkit or a Python wheel (PyTorch's, JAX's): cudarc then
/// finds them by soname, since the loader matches a name against libraries already loaded.
fn preload() -> Result<(), String> {
    // Safety: these only try `dlopen` on cudarc's candidate names.
    let present = || unsafe { cudarc::cublas::sys::is_culib_present() && lt_sys::is_culib_present() };
    if present() {
        return Ok(());
    }
    for dir in library_dirs() {
        for major in ["13", "12"] {
            let (lt, blas) = (dir.join(format!("libcublasLt.so.{major}")), dir.join(format!("libcublas.so.{major}")));
            if lt.is_file() && blas.is_file() && dlopen(&lt).and_then(|()| dlopen(&blas)).is_ok() && present() {
                println!("cuBLAS: loaded from {}", dir.display());
                return Ok(());
            }
        }
    }
    Err("libcublas / libcublasLt not found. Find them with `find / -name 'libcublas.so*' 2>/dev/null` \
         and run with LD_LIBRARY_PATH=<that directory>:$LD_LIBRARY_PATH (a PyTorch or JAX wheel keeps \
         them in site-packages/nvidia/cu13/lib or nvidia/cublas/lib)"
        .to_string())
}

/// Where CUDA 12 / 13 installs put libcublas: the toolkit, and pip's `nvidia-*` wheels under every
/// Python prefix in the usual places (`/opt/*/.venv` is where the GPU machine's PyTorch lives).
fn library_dirs() -> Vec<PathBuf> {
    let mut dirs: Vec<PathBuf> = ["CUDA_HOME", "CUDA_PATH"]
        .iter()
        .filter_map(std::env::var_os)
        .map(|root| PathBuf::from(root).join("lib64"))
        .collect();
    dirs.extend(["/usr/local/cuda/lib64", "/usr/local/cuda/targets/x86_64-linux/lib"].map(PathBuf::from));
    let cuda_versions = subdirs("/usr/local").into_iter().filter(|d| name_starts(d, "cuda-"));
    dirs.extend(cuda_versions.map(|d| d.join("lib64")));
    let mut prefixes: Vec<PathBuf> = vec!["/usr/local".into(), "/usr".into()];
    prefixes.extend(std::env::var_os("VIRTUAL_ENV").map(PathBuf::from));
    prefixes.extend(std::env::var_os("HOME").map(|home| PathBuf::from(home).join(".local")));
    for opt in subdirs("/opt") {
        prefixes.extend([opt.join(".venv"), opt.join("venv"), opt]);
    }
    for prefix in prefixes {
        for python in subdirs(prefix.join("lib")).into_iter().filter(|d| name_starts(d, "python3")) {
            for packages in ["site-packages", "dist-packages"] {
                dirs.extend(subdirs(python.join(packages).join("nvidia")).into_iter().map(|p| p.join("lib")));
            }
        }
    }
    dirs
}

fn subdirs(dir: impl AsRef<Path>) -> Vec<PathBuf> {
    let Ok(entries) = std::fs::read_dir(dir) else { return Vec::new() };
    let mut dirs: Vec<PathBuf> = entries.flatten().map(|e| e.path()).filter(|p| p.is_dir()).collect();
    dirs.sort();
    dirs
}

fn name_starts(path: &Path, prefix: &str) -> bool {
    path.file_name().is_some_and(|name| name.to_string_lossy().starts_with(prefix))
}

/// Loads a shared library for the rest of the process (`dlopen`, RTLD_NOW | RTLD_GLOBAL).
fn dlopen(path: &Path) -> Result<(), String> {
    extern "C" {
        fn dlopen(filename: *const std::ffi::c_char, flags: std::ffi::c_int) -> *mut c_void;
    }
    // <dlfcn.h> on Linux: RTLD_NOW = 0x2, RTLD_GLOBAL = 0x100.
    const FLAGS: std::ffi::c_int = 0x2 | 0x100;
    let name = CString::new(path.as_os_str().as_bytes()).map_err(|e| e.to_string())?;
    // Safety: `name` is a valid C string; the handle is deliberately never closed, because cudarc
    // uses the library until the process exits.
    let handle = unsafe { dlopen(name.as_ptr(), FLAGS) };
    match handle.is_null() {
        true => Err(format!("cannot load {}", path.display())),
        false => Ok(()),
    }
}
