//! bench_matmul: tessel's persistent bf16 / f16 GEMM (`kernels/src/matmul.rs`) against cuBLAS
//! and cuBLASLt, in one process, on the same buffers.
//!
//! ```text
//! cargo build --release -p tessel-bench --example bench_matmul
//! # then, on the GPU machine (bench/README.md):
//! BENCH_SHAPES=8192x8192x8192 BENCH_OUT=/tmp target/release/examples/bench_matmul
//! ```
//!
//! The protocol (docs/performance.md, "How we measure"), per shape and dtype:
//! - inputs are N(0,1) from fixed seeds (never zeros: they run faster than real data);
//! - when one set of A, B and C is smaller than twice the L2, launches rotate over enough sets to
//!   exceed that, each launch (whichever contender's) taking the next set, so that operands come
//!   from HBM as they would in a model;
//! - tessel's C and cuBLAS's C on the same inputs, each written over NaN, are compared:
//!   `max|c_tessel - c_cublas| / max|c_cublas|` must be at most 1e-2;
//! - the implementations are timed interleaved, round by round (tessel, cuBLAS, cuBLASLt), so that
//!   all of them run at the same clocks: 10 warm-up rounds, then `BENCH_RUNS` (default 50) rounds,
//!   each launch between two CUDA events; each one's median is reported. Launches are queued behind
//!   a held stream (`Gate`), so that no timed launch waits for the CPU to queue it. By default the
//!   rounds run back to back (a sustained load, at the clocks the card's power limit allows);
//!   `BENCH_GAP_MS=50` idles the GPU that long after each round, so that it stays cool and near
//!   its top clocks (an occasional GEMM);
//! - "cuBLAS" is the faster of `cublasGemmEx` (f32 compute, cuBLAS's default algorithm) and
//!   cuBLASLt (the fastest of the first few algorithms its heuristic proposes); the table says which.
//!
//! Row-major C = A @ B is column-major C^T = B^T A^T, so both cuBLAS calls get B as their first
//! operand (m = N, n = M, lda = N, ldb = K, ldc = N), with no transposes.
//!
//! Environment: `BENCH_SHAPES` (comma-separated `MxNxK`, C = A[M,K] @ B[K,N]; tessel needs N and K
//! to be multiples of 8, for TMA's 16-byte rows), `BENCH_DTYPES` (`bf16,f16`), `BENCH_RUNS`,
//! `BENCH_GAP_MS`, `BENCH_OUT` (the CSV's directory; default `bench/results`), `BENCH_VARIANTS`
//! (other tessel kernel variants, as `TESSEL_MATMUL` names them, e.g. `pair,overlapped`: timed in
//! the same rounds and printed on the shape's line, never the baseline), `BENCH_CEILING=1` (also
//! time `kernels/src/ceiling.rs`, the wide kernel's wgmmas alone: an upper bound for any kernel built
//! on them, printed on the shape's line as `tessel:ceiling`; its result is not a product). The
//! table is the last lines of the output. Without a GPU the benchmark says so and exits 0; exit
//! status 1 means a check or a run failed.

use tessel_kernels::ceiling::ceiling;
use tessel_kernels::matmul as kernels;

#[path = "bench_support/cublas.rs"]
mod cublas;
#[path = "bench_support/harness.rs"]
mod harness;
#[path = "bench_support/random.rs"]
mod random;
#[path = "bench_support/table.rs"]
mod table;
#[path = "bench_support/timing.rs"]
mod timing;

use std::error::Error;
use std::process::ExitCode;

use cudarc::cublas::{CudaBlas, Gemm, GemmConfig};
use cudarc::cublaslt::sys as lt_sys;
use tessel::{bf16, f16, Device, DeviceTensor, Element, HostTensor};

use cublas::{guarded, Lt, LtEpilogue, LtMatrices, LtOperands, LtProblem};
use harness::{Config, Contest, Row, Shape, HOST_SAMPLES};
use timing::Op;

/// Errors of the benchmark itself: tessel's, cudarc's, or our own messages.
pub type Res<T> = std::result::Result<T, Box<dyn Error>>;

/// Whether tessel's kernel takes `shape`: any M, N and K (the last tiles overhang), but TMA moves
/// rows of whole 16-byte units, so N and K must be multiples of 8 (the launch would say so too,
/// after the inputs are made).
fn fits(shape: Shape) -> Result<(), String> {
    let Shape { m, n, k } = shape;
    if m == 0 || n == 0 || n % 8 != 0 || k == 0 || k % 8 != 0 {
        return Err("the kernel needs N and K to be multiples of 8, and M > 0".into());
    }
    Ok(())
}

/// Bytes of one set of A, B and C with `bytes` per element.
fn set_bytes(shape: Shape, bytes: usize) -> usize {
    (shape.m * shape.k + shape.k * shape.n + shape.m * shape.n) * bytes
}

/// A dtype both tessel's kernel and cuBLAS handle: its kernel and its cuBLAS call.
pub trait Dtype: Element {
    /// Launches tessel's kernel for this dtype: variant `v` (for `BENCH_VARIANTS`), or the
    /// dispatcher's choice.
    fn tessel(
        v: Option<kernels::Variant>,
        dev: &Device,
        a: &DeviceTensor<Self>,
        b: &DeviceTensor<Self>,
        c: &mut DeviceTensor<Self>,
    ) -> tessel::Result<()>;

    /// Launches the ceiling kernel for this dtype (`BENCH_CEILING`).
    fn ceiling(
        dev: &Device,
        a: &DeviceTensor<Self>,
        b: &DeviceTensor<Self>,
        c: &mut DeviceTensor<Self>,
    ) -> tessel::Result<()>;

    /// `cublasGemmEx` with f32 compute (cudarc's `Gemm` for `half` types).
    ///
    /// # Safety
    /// `cfg` must describe matrices that fit in `a`, `b` and `c`.
    unsafe fn gemm(blas: &CudaBlas, cfg: GemmConfig<Self>, a: &A<Self>, b: &A<Self>, c: &mut A<Self>) -> Res<()>;
}

/// A cudarc device buffer, as cuBLAS takes it.
type A<T> = cudarc::driver::CudaSlice<T>;

macro_rules! dtype {
    ($t:ty, $kernel:ident, $variant:ident) => {
        impl Dtype for $t {
            fn tessel(
                v: Option<kernels::Variant>,
                dev: &Device,
                a: &DeviceTensor<Self>,
                b: &DeviceTensor<Self>,
                c: &mut DeviceTensor<Self>,
            ) -> tessel::Result<()> {
                match v {
                    None => kernels::$kernel(dev, a, b, c),
                    Some(v) => kernels::$variant(v, dev, a, b, c),
                }
            }

            fn ceiling(
                dev: &Device,
                a: &DeviceTensor<Self>,
                b: &DeviceTensor<Self>,
                c: &mut DeviceTensor<Self>,
            ) -> tessel::Result<()> {
                ceiling::<$t, 132>::launch(dev, a, b, c)
            }

            unsafe fn gemm(
                blas: &CudaBlas,
                cfg: GemmConfig<Self>,
                a: &A<Self>,
                b: &A<Self>,
                c: &mut A<Self>,
            ) -> Res<()> {
                // Safety: passed on from the caller.
                Ok(unsafe { blas.gemm(cfg, a, b, c) }?)
            }
        }
    };
}

dtype!(bf16, matmul_bf16_any, matmul_bf16_variant);
dtype!(f16, matmul_f16_any, matmul_f16_variant);

/// One set of operands; sets rotate so that the working set exceeds the L2.
pub struct Set<T: Element> {
    pub a: DeviceTensor<T>,
    pub b: DeviceTensor<T>,
    pub c: DeviceTensor<T>,
}

/// Row-major C = A @ B is column-major C^T = B^T A^T: cuBLASLt's A is our B (module doc).
impl<T: Element> LtOperands for Set<T> {
    type In = T;
    type C = T;

    fn lt_operands(&mut self) -> LtMatrices<'_, T, T> {
        LtMatrices { a: &self.b, b: &self.a, c: &mut self.c, bias: None }
    }
}

/// The cuBLASLt problem of `shape`: C^T[N,M] = B^T[N,K] A^T[K,M], f32 compute and scale.
fn lt_problem(shape: Shape) -> LtProblem {
    LtProblem {
        m: shape.n,
        n: shape.m,
        k: shape.k,
        compute: lt_sys::cublasComputeType_t::CUBLAS_COMPUTE_32F,
        scale_type: lt_sys::cudaDataType_t::CUDA_R_32F,
        trans_a: false,
        fast_accum: false,
        alpha: 1.0,
        epilogue: LtEpilogue::None,
    }
}

fn main() -> ExitCode {
    harness::exit_code("bench_matmul", run())
}

/// Benchmarks every shape and dtype, then prints and writes the table. `Ok(false)`: a row failed.
fn run() -> Res<bool> {
    let config = Config::from_env(&["bf16", "f16"], &harness::SHAPES, fits)?;
    let Some((dev, l2)) = harness::open_device("bench_matmul", &config)? else { return Ok(true) };
    let baselines = Baselines::open(&dev);
    let rows = harness::bench_all(&config, |shape, dtype| match dtype {
        "bf16" => bench::<bf16>(&dev, &baselines, shape, l2, &config),
        _ => bench::<f16>(&dev, &baselines, shape, l2, &config),
    });
    let header = ["shape", "dtype", "tessel TFLOP/s", "cuBLAS TFLOP/s", "ratio", "rel err", "cuBLAS path"];
    Ok(harness::report(&rows, header, &config, "bench_matmul.csv"))
}

/// Checks and times one shape and dtype.
fn bench<T: Dtype>(dev: &Device, baselines: &Baselines, shape: Shape, l2: usize, config: &Config) -> Res<Row> {
    let bytes = set_bytes(shape, T::BYTES);
    let mut sets = make_sets::<T>(dev, shape, harness::set_count(l2, bytes))?;
    let check = check(dev, baselines, shape, &mut sets[0])?;
    // The contenders, timed interleaved: tessel first, then whichever baselines run here.
    let tessel: Op<Set<T>> = Box::new(|set: &mut Set<T>| Ok(T::tessel(None, dev, &set.a, &set.b, &mut set.c)?));
    let blas = baselines.gemm_op(shape, &mut sets[0]);
    let lt = baselines.lt.as_ref().map_err(|_| "cublasLt: not loaded".to_string());
    let lt = lt.and_then(|lt| lt.op(dev, lt_problem(shape), &mut sets));
    // BENCH_VARIANTS: other tessel kernels in the same rounds (timed for tuning, never the baseline).
    let mut variants: Vec<(Op<Set<T>>, String)> = harness::variants(kernels::Variant::named)?
        .into_iter()
        .map(|v| {
            let op: Op<Set<T>> =
                Box::new(move |set: &mut Set<T>| Ok(T::tessel(Some(v), dev, &set.a, &set.b, &mut set.c)?));
            (op, format!("{v:?}"))
        })
        .collect();
    if std::env::var("BENCH_CEILING").is_ok_and(|v| v.trim() == "1") {
        let op: Op<Set<T>> = Box::new(|set: &mut Set<T>| Ok(T::ceiling(dev, &set.a, &set.b, &mut set.c)?));
        variants.push((op, "ceiling".to_string()));
    }
    let contest =
        Contest { shape, dtype: T::DTYPE, unit: "TFLOP/s", tessel, baselines: vec![blas, lt], variants, check };
    harness::contest(dev, config, &mut sets, bytes, contest)
}

/// `count` sets of N(0,1) operands for `shape` (C starts at zero; every check poisons it first).
fn make_sets<T: Dtype>(dev: &Device, shape: Shape, count: usize) -> Res<Vec<Set<T>>> {
    (0..count as u64)
        .map(|i| {
            let a = HostTensor::new([shape.m, shape.k], random::randn(shape.m * shape.k, 2 * i + 1, T::from_f64))?;
            let b = HostTensor::new([shape.k, shape.n], random::randn(shape.k * shape.n, 2 * i + 2, T::from_f64))?;
            Ok(Set {
                a: DeviceTensor::from_host(dev, &a)?,
                b: DeviceTensor::from_host(dev, &b)?,
                c: DeviceTensor::zeros(dev, [shape.m, shape.n])?,
            })
        })
        .collect()
}

/// Tessel's C against a reference on the same inputs, both written over NaN: cuBLAS if it loaded,
/// else cuBLASLt, else f64 on the host at sampled elements. Returns the error and the reference.
fn check<T: Dtype>(dev: &Device, baselines: &Baselines, shape: Shape, set: &mut Set<T>) -> Res<(f64, String)> {
    set.c.poison(T::from_f64(f64::NAN))?;
    T::tessel(None, dev, &set.a, &set.b, &mut set.c)?;
    let ours = set.c.to_host()?;
    let mut failures = Vec::new();
    let lt = |set: &mut Set<T>| match &baselines.lt {
        Ok(lt) => lt.once(dev, lt_problem(shape), set),
        Err(_) => Err("not loaded".to_string()),
    };
    for (name, reference) in [("cublas", baselines.gemm_once(shape, set)), ("cublasLt", lt(set))] {
        match reference {
            Ok(reference) => return Ok((harness::rel_err(ours.data(), reference.data()), name.to_string())),
            Err(why) => failures.push(format!("{name}: {why}")),
        }
    }
    let (a, b) = (set.a.to_host()?, set.b.to_host()?);
    let (a, b, k, n) = (a.data(), b.data(), shape.k, shape.n);
    let err = harness::sampled_rel_err(shape, ours.data(), |i, j| {
        (0..k).map(|p| a[i * k + p].to_f64() * b[p * n + j].to_f64()).sum()
    });
    Ok((err, format!("f64 host reference at {HOST_SAMPLES} elements ({})", failures.join("; "))))
}

/// The baselines' handles, or why each could not be opened.
struct Baselines {
    blas: Result<CudaBlas, String>,
    lt: Result<Lt, String>,
}

impl Baselines {
    /// Loads the libraries and opens both handles on the device's stream; prints what happened.
    fn open(dev: &Device) -> Baselines {
        let blas = cublas::preload().and_then(|()| guarded(|| Ok(CudaBlas::new(dev.stream().clone())?)));
        let lt = Lt::open(dev);
        for (name, handle) in [("cuBLAS", blas.as_ref().err()), ("cuBLASLt", lt.as_ref().err())] {
            match handle {
                None => println!("{name}: loaded"),
                Some(why) => println!("{name}: NOT AVAILABLE, tessel is measured alone: {why}"),
            }
        }
        Baselines { blas, lt }
    }

    /// One `cublasGemmEx` over NaN-poisoned C, copied back.
    fn gemm_once<T: Dtype>(&self, shape: Shape, set: &mut Set<T>) -> Result<HostTensor<T>, String> {
        let blas = self.blas.as_ref().map_err(|_| "not loaded".to_string())?;
        guarded(|| {
            set.c.poison(T::from_f64(f64::NAN))?;
            gemm(blas, shape, set)?;
            Ok(set.c.to_host()?)
        })
    }

    /// `cublasGemmEx` as a contender, after one guarded trial run on `set` (cudarc panics on a
    /// missing symbol; the timed rounds must not).
    fn gemm_op<'a, T: Dtype>(&'a self, shape: Shape, set: &mut Set<T>) -> Result<(Op<'a, Set<T>>, String), String> {
        let blas = self.blas.as_ref().map_err(|_| "cublas: not loaded".to_string())?;
        guarded(|| gemm(blas, shape, set)).map_err(|why| format!("cublas: {why}"))?;
        Ok((Box::new(move |set: &mut Set<T>| gemm(blas, shape, set)), "cublas".to_string()))
    }
}

/// Row-major C = A @ B as column-major C^T = B^T A^T: cuBLAS's first operand is B (module doc).
fn gemm<T: Dtype>(blas: &CudaBlas, shape: Shape, set: &mut Set<T>) -> Res<()> {
    let Shape { m, n, k } = shape;
    let cfg = cublas::row_major_gemm::<T>(m, n, k)?;
    // Safety: B is K x N row-major (N x K column-major, ld N), A is M x K (K x M, ld K) and C is
    // M x N (N x M, ld N): each buffer holds exactly the matrix `cfg` describes.
    unsafe { T::gemm(blas, cfg, set.b.as_slice(), set.a.as_slice(), set.c.as_slice_mut()) }
}
