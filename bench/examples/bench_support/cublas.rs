//! The cuBLASLt baseline, through cudarc's `result` layer (so that descriptors and the algorithm
//! are chosen once, not on every launch as cudarc's safe `Matmul` does), and the loading of
//! libcublas and libcublasLt, which `bench_matmul`'s `cublasGemmEx` shares.
//!
//! cudarc loads libcublas and libcublasLt at run time and panics when it cannot; every first use
//! goes through [`guarded`], and [`preload`] looks in the usual places before giving up.

use std::any::Any;
use std::ffi::{c_void, CString};
use std::marker::PhantomData;
use std::os::unix::ffi::OsStrExt;
use std::panic::{self, AssertUnwindSafe};
use std::path::{Path, PathBuf};

use cudarc::cublas::sys::cublasOperation_t;
use cudarc::cublas::GemmConfig;
use cudarc::cublaslt::{result as lt, sys as lt_sys};
use cudarc::driver::{CudaSlice, CudaStream, DevicePtr};
use tessel::{Device, DeviceTensor, Element, HostTensor};

use crate::timing::{time_interleaved, Op};
use crate::Res;

/// Algorithms asked of cuBLASLt's heuristic; each is timed briefly and the fastest kept.
const LT_ALGOS: usize = 8;
/// Rounds of that trial, each launching every algorithm once (after 3 warm-up rounds).
const LT_TRIAL_RUNS: usize = 10;
/// cuBLASLt's workspace: NVIDIA's recommendation for Hopper (cudarc's `Workspace` uses the same).
const LT_WORKSPACE: usize = 32 << 20;

/// One matmul as cuBLASLt sees it, column-major: D = alpha op(A) B with op(A) m x k and B k x n,
/// into C = D (m x n; beta = 0, so C is only written). Every matrix is packed: its leading
/// dimension is its row count. The element types are those of the operands (`LtOperands`).
#[derive(Clone, Copy, Debug)]
pub struct LtProblem {
    pub m: usize,
    pub n: usize,
    pub k: usize,
    pub compute: lt_sys::cublasComputeType_t,
    /// The type of alpha and beta: `CUDA_R_32F` or `CUDA_R_32I`.
    pub scale_type: lt_sys::cudaDataType,
    /// A is stored k x m and read transposed (`CUBLAS_OP_T`); otherwise it is stored m x k.
    pub trans_a: bool,
    /// FP8 only: accumulate in the tensor cores' accumulators throughout, without cuBLASLt's
    /// periodic promotion of partial sums (`CUBLASLT_MATMUL_DESC_FAST_ACCUM`).
    pub fast_accum: bool,
    pub alpha: f64,
    /// What cuBLASLt applies to each element of D before storing it.
    pub epilogue: LtEpilogue,
}

/// cuBLASLt's fused epilogues used here: D = act(alpha op(A) B + bias), the bias a vector of m
/// elements of C's type (one per row of the column-major D), from `LtMatrices::bias`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[allow(dead_code)] // Each benchmark constructs the epilogues it compares.
pub enum LtEpilogue {
    None,
    Bias,
    ReluBias,
    /// GELU in its tanh form.
    GeluBias,
}

impl LtEpilogue {
    fn lt(self) -> lt_sys::cublasLtEpilogue_t {
        use lt_sys::cublasLtEpilogue_t::*;
        match self {
            LtEpilogue::None => CUBLASLT_EPILOGUE_DEFAULT,
            LtEpilogue::Bias => CUBLASLT_EPILOGUE_BIAS,
            LtEpilogue::ReluBias => CUBLASLT_EPILOGUE_RELU_BIAS,
            LtEpilogue::GeluBias => CUBLASLT_EPILOGUE_GELU_BIAS,
        }
    }
}

impl LtProblem {
    /// The stored (rows, columns) of A, B and C.
    fn stored(&self) -> [(u64, u64); 3] {
        let (m, n, k) = (self.m as u64, self.n as u64, self.k as u64);
        [if self.trans_a { (k, m) } else { (m, k) }, (k, n), (m, n)]
    }

    /// The name of the baseline: `cublasLt`, `cublasLt fast-accum`, `cublasLt GeluBias`..
    pub fn label(&self) -> String {
        let epilogue = match self.epilogue {
            LtEpilogue::None => String::new(),
            other => format!(" {other:?}"),
        };
        format!("cublasLt{}{epilogue}", if self.fast_accum { " fast-accum" } else { "" })
    }

    /// alpha and beta as the scale type holds them: an f32's or an i32's bits.
    fn scalars(&self) -> Res<[u32; 2]> {
        use lt_sys::cudaDataType_t::{CUDA_R_32F, CUDA_R_32I};
        match self.scale_type {
            CUDA_R_32F => Ok([(self.alpha as f32).to_bits(), 0]),
            CUDA_R_32I if self.alpha.fract() == 0.0 => Ok([self.alpha as i32 as u32, 0]),
            other => Err(format!("alpha = {} with scale type {other:?}: not supported here", self.alpha).into()),
        }
    }
}

/// An operand set as cuBLASLt reads it. A benchmark's set need not hold its operands in
/// cuBLASLt's order: a row-major product is the column-major product of its transposes.
pub trait LtOperands {
    /// A's and B's element type.
    type In: Element;
    /// C's (and D's) element type.
    type C: Element;

    /// The set's tensors in cuBLASLt's roles.
    fn lt_operands(&mut self) -> LtMatrices<'_, Self::In, Self::C>;
}

/// cuBLASLt's A and B, its C, which it overwrites, and the bias of an epilogue that has one.
pub struct LtMatrices<'s, In: Element, C: Element> {
    pub a: &'s DeviceTensor<In>,
    pub b: &'s DeviceTensor<In>,
    pub c: &'s mut DeviceTensor<C>,
    pub bias: Option<&'s DeviceTensor<C>>,
}

/// cuBLASLt's type for a tessel element type.
fn lt_type<T: Element>() -> Res<lt_sys::cudaDataType> {
    use lt_sys::cudaDataType_t::*;
    Ok(match T::DTYPE {
        "bf16" => CUDA_R_16BF,
        "f16" => CUDA_R_16F,
        "f32" => CUDA_R_32F,
        "f8e4m3" => CUDA_R_8F_E4M3,
        "f8e5m2" => CUDA_R_8F_E5M2,
        "i8" => CUDA_R_8I,
        "i32" => CUDA_R_32I,
        other => return Err(format!("no cuBLASLt type for {other} here").into()),
    })
}

/// What C holds before a checked run, so that an element left unwritten shows: NaN, or for an
/// integer type its minimum (which no product here comes near).
fn poison<T: Element>() -> T {
    let nan = T::from_f64(f64::NAN);
    match nan.to_f64().is_nan() {
        true => nan,
        false => T::from_f64(f64::MIN),
    }
}

/// A cuBLASLt handle and its workspace.
pub struct Lt {
    handle: lt_sys::cublasLtHandle_t,
    workspace: CudaSlice<u8>,
}

impl Lt {
    /// Loads the libraries and creates a handle on the device's stream, or says why it cannot.
    pub fn open(dev: &Device) -> Result<Lt, String> {
        preload().and_then(|()| {
            guarded(|| {
                let stream = dev.stream();
                stream.context().bind_to_thread()?;
                let workspace = stream.alloc_zeros::<u8>(LT_WORKSPACE)?;
                Ok(Lt { handle: lt::create_handle()?, workspace })
            })
        })
    }

    /// One matmul (the heuristic's first algorithm) over a poisoned C, copied back.
    pub fn once<S: LtOperands>(
        &self,
        dev: &Device,
        problem: LtProblem,
        set: &mut S,
    ) -> Result<HostTensor<S::C>, String> {
        guarded(|| {
            let plan = LtPlan::new(self, problem)?;
            set.lt_operands().c.poison(poison())?;
            plan.run(dev.stream(), 0, set)?;
            Ok(set.lt_operands().c.to_host()?)
        })
    }

    /// The matmul as a contender, with the fastest of the heuristic's first algorithms (each timed
    /// briefly on `sets`), and its name: which algorithm that is.
    pub fn op<'a, S: LtOperands + 'a>(
        &'a self,
        dev: &'a Device,
        problem: LtProblem,
        sets: &mut [S],
    ) -> Result<(Op<'a, S>, String), String> {
        let chosen = guarded(|| {
            let plan = LtPlan::new(self, problem)?;
            let algo = plan.fastest(dev, sets)?;
            Ok((plan, algo))
        });
        let (plan, algo) = chosen.map_err(|why| format!("cublasLt: {why}"))?;
        let name = format!("{} algo {}/{}", problem.label(), algo + 1, plan.algos.len());
        Ok((Box::new(move |set: &mut S| plan.run(dev.stream(), algo, set)), name))
    }
}

impl Drop for Lt {
    fn drop(&mut self) {
        // Safety: the handle was created in `open` and is destroyed once. A failure is ignored:
        // `Drop` must not panic, and the process is ending anyway.
        let _ = unsafe { lt::destroy_handle(self.handle) };
    }
}

/// One cuBLASLt problem on operands `S`: its descriptors and the algorithms the heuristic proposed
/// for it. Null handles are ones not created yet (`new` fills them in order; `Drop` frees what
/// exists).
struct LtPlan<'a, S> {
    lt: &'a Lt,
    problem: LtProblem,
    /// alpha and beta (`LtProblem::scalars`).
    scalars: [u32; 2],
    desc: lt_sys::cublasLtMatmulDesc_t,
    /// A's, B's and C's (also D's).
    layouts: [lt_sys::cublasLtMatrixLayout_t; 3],
    pref: lt_sys::cublasLtMatmulPreference_t,
    algos: Vec<lt_sys::cublasLtMatmulAlgo_t>,
    operands: PhantomData<fn(&mut S)>,
}

impl<'a, S: LtOperands> LtPlan<'a, S> {
    /// Describes `problem` on `S`'s element types and asks the heuristic for up to `LT_ALGOS`
    /// algorithms that fit the workspace.
    fn new(lt: &'a Lt, problem: LtProblem) -> Res<LtPlan<'a, S>> {
        let mut plan = LtPlan {
            lt,
            problem,
            scalars: problem.scalars()?,
            desc: std::ptr::null_mut(),
            layouts: [std::ptr::null_mut(); 3],
            pref: std::ptr::null_mut(),
            algos: Vec::new(),
            operands: PhantomData,
        };
        plan.desc = lt::create_matmul_desc(problem.compute, problem.scale_type)?;
        // Attributes left at their defaults are not set: no transposes, no fast accumulation.
        use lt_sys::cublasLtMatmulDescAttributes_t::{CUBLASLT_MATMUL_DESC_FAST_ACCUM, CUBLASLT_MATMUL_DESC_TRANSA};
        if problem.trans_a {
            // Safety: TRANSA is an int32_t holding a cublasOperation_t (cuBLASLt docs,
            // cublasLtMatmulDescAttributes_t); the descriptor was just created.
            unsafe { set_attribute(plan.desc, CUBLASLT_MATMUL_DESC_TRANSA, &(cublasOperation_t::CUBLAS_OP_T as i32)) }?;
        }
        if problem.fast_accum {
            // Safety: FAST_ACCUM is an int8_t flag (same docs).
            unsafe { set_attribute(plan.desc, CUBLASLT_MATMUL_DESC_FAST_ACCUM, &1i8) }?;
        }
        if problem.epilogue != LtEpilogue::None {
            let attr = lt_sys::cublasLtMatmulDescAttributes_t::CUBLASLT_MATMUL_DESC_EPILOGUE;
            // Safety: EPILOGUE is a uint32_t holding a cublasLtEpilogue_t (same docs).
            unsafe { set_attribute(plan.desc, attr, &(problem.epilogue.lt() as u32)) }?;
        }
        let types = [lt_type::<S::In>()?, lt_type::<S::In>()?, lt_type::<S::C>()?];
        for (slot, ((rows, cols), ty)) in plan.layouts.iter_mut().zip(problem.stored().into_iter().zip(types)) {
            *slot = lt::create_matrix_layout(ty, rows, cols, rows as i64)?;
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

    /// The fastest of the heuristic's algorithms on `sets`, timed interleaved over `LT_TRIAL_RUNS`
    /// rounds. An algorithm that fails to launch is skipped, not fatal.
    fn fastest(&self, dev: &Device, sets: &mut [S]) -> Res<usize> {
        let probe = sets.first_mut().ok_or("no operand set")?;
        let usable: Vec<usize> =
            (0..self.algos.len()).filter(|&algo| self.run(dev.stream(), algo, probe).is_ok()).collect();
        if usable.is_empty() {
            return Err("no algorithm of the heuristic ran".into());
        }
        // Timed interleaved, like the contenders: timed one after the other, the first ones ran on
        // a cooler card, and at 8192^3 the trial then often kept the heuristic's first or second
        // algorithm where its seventh was faster under the sustained load
        // (`bench/results/lt-interleaved/`).
        let mut ops: Vec<Op<S>> = usable
            .iter()
            .map(|&algo| Box::new(move |set: &mut S| self.run(dev.stream(), algo, set)) as Op<S>)
            .collect();
        let times = time_interleaved(dev, LT_TRIAL_RUNS, 3, sets, &mut ops, None)?;
        let fastest = (0..usable.len()).min_by(|&i, &j| times[i].total_cmp(&times[j])).unwrap_or(0);
        Ok(usable[fastest])
    }

    /// Queues D = C = alpha op(A) B with algorithm `algo` on `stream` (the handle's device's
    /// stream), after checking that the operands are the matrices the layouts describe.
    fn run(&self, stream: &CudaStream, algo: usize, set: &mut S) -> Res<()> {
        let LtMatrices { a, b, c, bias } = set.lt_operands();
        let [(ar, ac), (br, bc), (cr, cc)] = self.problem.stored();
        if (a.len() as u64, b.len() as u64, c.len() as u64) != (ar * ac, br * bc, cr * cc) {
            return Err(format!(
                "cuBLASLt operands of {}, {} and {} elements for a problem of {:?}",
                a.len(),
                b.len(),
                c.len(),
                self.problem
            )
            .into());
        }
        if self.problem.epilogue != LtEpilogue::None {
            let bias = bias.ok_or("a bias epilogue without a bias")?;
            if bias.len() as u64 != cr {
                return Err(format!("a bias of {} elements for a D of {cr} rows", bias.len()).into());
            }
            let (pointer, _bias) = bias.device_ptr(stream);
            let attr = lt_sys::cublasLtMatmulDescAttributes_t::CUBLASLT_MATMUL_DESC_BIAS_POINTER;
            // Safety: BIAS_POINTER is a device pointer (`void *`) to m elements of C's type (the
            // default bias type for these output types; same docs): `bias` holds `cr` = m of
            // them (checked above) and lives, borrowed from the set, until the launch is queued
            // below, which reads it in stream order. The descriptor is live.
            unsafe { set_attribute(self.desc, attr, &(pointer as *const c_void)) }?;
        }
        let (a, _a) = a.device_ptr(stream);
        let (b, _b) = b.device_ptr(stream);
        let (c, _c) = c.device_ptr_mut(stream);
        let (workspace, _w) = self.lt.workspace.device_ptr(stream);
        let [a_layout, b_layout, c_layout] = self.layouts;
        let [alpha, beta] = &self.scalars;
        // Safety: the layouts describe exactly the buffers behind `a`, `b` and `c` (their element
        // types are `S`'s, by `new`; their sizes were checked above), whose guards live until
        // after the call; alpha and beta are host values of the scale type (`scalars`); the
        // algorithm came from the heuristic for these descriptors and needs no more workspace
        // than `LT_WORKSPACE`, which the workspace buffer holds.
        unsafe {
            lt::matmul(
                self.lt.handle,
                self.desc,
                (alpha as *const u32).cast(),
                (beta as *const u32).cast(),
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

impl<S> Drop for LtPlan<'_, S> {
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

/// Sets a matmul descriptor's attribute to `value`.
///
/// # Safety
/// `desc` must be live, and `T` must be the attribute's type (cuBLASLt docs,
/// `cublasLtMatmulDescAttributes_t`).
unsafe fn set_attribute<T>(
    desc: lt_sys::cublasLtMatmulDesc_t,
    attr: lt_sys::cublasLtMatmulDescAttributes_t,
    value: &T,
) -> Res<()> {
    // Safety: passed on from the caller; `value` is live for the call, which copies it.
    unsafe { lt::set_matmul_desc_attribute(desc, attr, (value as *const T).cast(), std::mem::size_of::<T>()) }?;
    Ok(())
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
pub fn preload() -> Result<(), String> {
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

/// cuBLAS's configuration for row-major C = A @ B (A M x K, B K x N, C M x N, packed), computed as
/// column-major C^T = B^T A^T: its first operand is B (N x K column-major, ld N), its second A
/// (K x M, ld K), and C is N x M (ld N). alpha 1, beta 0.
#[allow(dead_code)] // bench_matmul's and bench_collective's, not bench_linear's or bench_qmatmul's
pub fn row_major_gemm<T: Element>(m: usize, n: usize, k: usize) -> Res<GemmConfig<T>> {
    Ok(GemmConfig {
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
    })
}
