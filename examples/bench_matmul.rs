//! bench_matmul: tessel's persistent bf16 / f16 GEMM (`examples/kernels/matmul.rs`) against cuBLAS
//! and cuBLASLt, in one process, on the same buffers.
//!
//! ```text
//! cargo build --release --example bench_matmul      # then run it on the GPU machine: bench/README.md
//! BENCH_SHAPES=8192x8192x8192 BENCH_OUT=/tmp target/release/examples/bench_matmul
//! ```
//!
//! The protocol (DESIGN.md, "Performance protocol"), per shape and dtype:
//! - inputs are N(0,1) from fixed seeds (never zeros: they run faster than real data);
//! - when one set of A, B and C is smaller than twice the L2, launches rotate over enough sets to
//!   exceed that, so that operands come from HBM as they would in a model;
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
//! Environment: `BENCH_SHAPES` (comma-separated `MxNxK`, C = A[M,K] @ B[K,N]; tessel needs M % 128
//! and K % 64 to be 0, and N a multiple of the tile width of the kernel `kernels::choose` picks:
//! 256, 128 or 64), `BENCH_DTYPES` (`bf16,f16`), `BENCH_RUNS`, `BENCH_GAP_MS`, `BENCH_OUT` (the CSV's
//! directory; default `bench/results`). The table is the last lines of the output. Without a GPU
//! the benchmark says so and exits 0; exit status 1 means a check or a run failed.

#[path = "kernels/matmul.rs"]
#[allow(dead_code)] // The benchmark uses the kernels' `launch`, not their `interpret`.
mod kernels;

#[path = "bench_support/cublas.rs"]
mod cublas;
#[path = "bench_support/timing.rs"]
mod timing;

use std::error::Error;
use std::fmt;
use std::path::PathBuf;
use std::process::ExitCode;
use std::time::Duration;

use cudarc::cublas::{CudaBlas, Gemm, GemmConfig};
use cudarc::cublaslt::sys as lt_sys;
use cudarc::driver::sys::CUdevice_attribute;
use tessel::{bf16, f16, Device, DeviceTensor, Element, HostTensor};

use cublas::Baselines;
use timing::{time_interleaved, Op};

/// Errors of the benchmark itself: tessel's, cudarc's, or our own messages.
pub type Res<T> = std::result::Result<T, Box<dyn Error>>;

/// The shapes of issue 4: squares, a short and a long K, and a skinny M (M x N x K).
const SHAPES: [(usize, usize, usize); 6] = [
    (2048, 2048, 2048),
    (4096, 4096, 4096),
    (8192, 8192, 8192),
    (8192, 8192, 1024),
    (8192, 8192, 16384),
    (128, 8192, 8192),
];
/// Warm-up launches before timing (clocks up, modules loaded, tensor maps cached).
const WARMUP: usize = 10;
const DEFAULT_RUNS: usize = 50;
/// The acceptance bound on the relative error against cuBLAS.
const TOLERANCE: f64 = 1e-2;
/// The H100's L2, if the device does not say (the H200 reports 60 MB).
const FALLBACK_L2: usize = 50 << 20;
/// Elements of tessel's result checked against an f64 host reference when cuBLAS is unavailable.
const HOST_SAMPLES: usize = 2048;

/// A problem: C[M,N] = A[M,K] @ B[K,N].
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Shape {
    pub m: usize,
    pub n: usize,
    pub k: usize,
}

impl Shape {
    /// Parses `MxNxK`, checking the divisibility tessel's kernel needs.
    fn parse(text: &str) -> Res<Shape> {
        let dims: Vec<usize> = text.trim().split('x').map(str::parse).collect::<Result<_, _>>()?;
        let [m, n, k] = dims[..] else { return Err(format!("shape `{text}` is not MxNxK").into()) };
        // N must be whole tiles of the kernel the dispatcher picks for the shape (the launch would
        // say so too, but only after the inputs are made).
        let width = match kernels::choose(m, n, k) {
            kernels::Variant::Wide | kernels::Variant::Pair => 256,
            kernels::Variant::Split => 128,
            kernels::Variant::Narrow => 64,
        };
        if m == 0 || m % 128 != 0 || n == 0 || n % width != 0 || k == 0 || k % 64 != 0 {
            return Err(format!("shape `{text}`: the kernel needs M % 128, N % {width} and K % 64 to be 0").into());
        }
        Ok(Shape { m, n, k })
    }

    /// TFLOP/s of one product taking `ms` milliseconds (2MNK flops).
    fn tflops(self, ms: f64) -> f64 {
        2.0 * (self.m * self.n * self.k) as f64 / (ms * 1e-3) / 1e12
    }

    /// Bytes of one set of A, B and C with `bytes` per element.
    fn set_bytes(self, bytes: usize) -> usize {
        (self.m * self.k + self.k * self.n + self.m * self.n) * bytes
    }
}

impl fmt::Display for Shape {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}x{}x{}", self.m, self.n, self.k)
    }
}

/// A dtype both tessel's kernel and cuBLAS handle: its kernel, its cuBLAS call and its cuBLASLt type.
pub trait Dtype: Element {
    /// The cuBLASLt element type.
    const LT_TYPE: lt_sys::cudaDataType;

    /// Launches tessel's kernel for this dtype.
    fn tessel(
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
    ($t:ty, $lt:ident, $kernel:ident) => {
        impl Dtype for $t {
            const LT_TYPE: lt_sys::cudaDataType = lt_sys::cudaDataType_t::$lt;

            fn tessel(
                dev: &Device,
                a: &DeviceTensor<Self>,
                b: &DeviceTensor<Self>,
                c: &mut DeviceTensor<Self>,
            ) -> tessel::Result<()> {
                kernels::$kernel(dev, a, b, c)
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

dtype!(bf16, CUDA_R_16BF, matmul_bf16_any);
dtype!(f16, CUDA_R_16F, matmul_f16_any);

/// One set of operands; sets rotate so that the working set exceeds the L2.
pub struct Set<T: Element> {
    pub a: DeviceTensor<T>,
    pub b: DeviceTensor<T>,
    pub c: DeviceTensor<T>,
}

/// What the environment asks for (module doc).
struct Config {
    shapes: Vec<Shape>,
    dtypes: Vec<&'static str>,
    runs: usize,
    /// `BENCH_GAP_MS`: idle time after each timed round (none: back to back).
    gap: Option<Duration>,
    out_dir: PathBuf,
}

impl Config {
    fn from_env() -> Res<Config> {
        let var = |name| std::env::var(name).ok().filter(|v: &String| !v.trim().is_empty());
        let shapes = match var("BENCH_SHAPES") {
            Some(list) => list.split(',').map(Shape::parse).collect::<Res<_>>()?,
            None => SHAPES.iter().map(|&(m, n, k)| Shape { m, n, k }).collect(),
        };
        let dtypes = match var("BENCH_DTYPES") {
            Some(list) => list.split(',').map(parse_dtype).collect::<Res<_>>()?,
            None => vec!["bf16", "f16"],
        };
        let runs = match var("BENCH_RUNS") {
            Some(n) => n.trim().parse::<usize>().map_err(|e| format!("BENCH_RUNS=`{n}`: {e}"))?.max(1),
            None => DEFAULT_RUNS,
        };
        let gap = match var("BENCH_GAP_MS") {
            Some(ms) => ms.trim().parse::<u64>().map_err(|e| format!("BENCH_GAP_MS=`{ms}`: {e}"))?,
            None => 0,
        };
        let gap = (gap > 0).then(|| Duration::from_millis(gap));
        let out_dir = var("BENCH_OUT").map_or_else(|| PathBuf::from("bench/results"), PathBuf::from);
        Ok(Config { shapes, dtypes, runs, gap, out_dir })
    }
}

fn parse_dtype(text: &str) -> Res<&'static str> {
    match text.trim() {
        "bf16" => Ok("bf16"),
        "f16" => Ok("f16"),
        other => Err(format!("BENCH_DTYPES: `{other}` is not bf16 or f16").into()),
    }
}

/// One line of the table; `None` where that part failed (the reason was printed).
struct Row {
    shape: Shape,
    dtype: &'static str,
    tessel: Option<f64>,
    /// TFLOP/s of the faster cuBLAS path, and which path it was.
    baseline: Option<(f64, String)>,
    rel_err: Option<f64>,
}

impl Row {
    fn passed(&self) -> bool {
        self.tessel.is_some() && self.rel_err.is_some_and(|e| e <= TOLERANCE)
    }
}

fn main() -> ExitCode {
    match run() {
        Ok(true) => ExitCode::SUCCESS,
        Ok(false) => ExitCode::FAILURE,
        Err(err) => {
            eprintln!("bench_matmul: error: {err}");
            ExitCode::FAILURE
        }
    }
}

/// Benchmarks every shape and dtype, then prints and writes the table. `Ok(false)`: a row failed.
fn run() -> Res<bool> {
    let config = Config::from_env()?;
    if !Device::is_available() {
        let why = Device::new(0).err().map_or_else(String::new, |e| e.to_string());
        println!("bench_matmul: no Hopper GPU here ({why})");
        println!("bench_matmul: nothing to measure; run it on the GPU machine (bench/README.md)");
        return Ok(true);
    }
    let dev = Device::new(0)?;
    let l2 = dev
        .context()
        .attribute(CUdevice_attribute::CU_DEVICE_ATTRIBUTE_L2_CACHE_SIZE)
        .map_or(FALLBACK_L2, |b| b as usize);
    let pace = match config.gap {
        Some(gap) => format!("{} ms idle after each round", gap.as_millis()),
        None => "back to back".into(),
    };
    println!(
        "bench_matmul on {}: L2 {} MiB, {WARMUP} warm-up + {} timed rounds ({pace}), median",
        dev.name(),
        l2 >> 20,
        config.runs
    );
    let baselines = Baselines::open(&dev);
    let mut rows = Vec::new();
    for &shape in &config.shapes {
        for &dtype in &config.dtypes {
            let row = match dtype {
                "bf16" => bench::<bf16>(&dev, &baselines, shape, l2, &config),
                _ => bench::<f16>(&dev, &baselines, shape, l2, &config),
            };
            rows.push(row.unwrap_or_else(|err| {
                println!("{shape} {dtype}: FAILED: {err}");
                Row { shape, dtype, tessel: None, baseline: None, rel_err: None }
            }));
        }
    }
    report(&rows, &config)
}

/// Checks and times one shape and dtype.
fn bench<T: Dtype>(dev: &Device, baselines: &Baselines, shape: Shape, l2: usize, config: &Config) -> Res<Row> {
    // Enough sets that a launch finds none of its operands in the L2 from the launch before.
    let count = (2 * l2).div_ceil(shape.set_bytes(T::BYTES)).max(1);
    let mut sets = make_sets::<T>(dev, shape, count)?;
    let (rel_err, against) = check(dev, baselines, shape, &mut sets[0])?;
    // The contenders, timed interleaved (bench_support/timing.rs): tessel first, then whichever
    // baselines run here.
    let mut ops: Vec<Op<Set<T>>> = vec![Box::new(|set: &mut Set<T>| Ok(T::tessel(dev, &set.a, &set.b, &mut set.c)?))];
    let mut names = Vec::new();
    let mut missing = Vec::new();
    let blas = baselines.gemm_op(shape, &mut sets[0]);
    let lt = baselines.lt_op(dev, shape, &mut sets);
    for contender in [blas, lt] {
        match contender {
            Ok((op, name)) => {
                ops.push(op);
                names.push(name);
            }
            Err(why) => missing.push(why),
        }
    }
    let times = time_interleaved(dev, config.runs, WARMUP, &mut sets, &mut ops, config.gap)?;
    let tessel_ms = times[0];
    let baselines: Vec<(f64, String)> = times[1..].iter().copied().zip(names).collect();
    let mb = shape.set_bytes(T::BYTES) >> 20;
    let timed: Vec<String> =
        baselines.iter().map(|(ms, how)| format!("{how} {ms:.4} ms {:.1} TFLOP/s", shape.tflops(*ms))).collect();
    println!(
        "{shape} {}: {count} set(s) of {mb} MiB | tessel {tessel_ms:.4} ms {:.1} TFLOP/s | {} | rel err {rel_err:.2e} vs {against}",
        T::DTYPE,
        shape.tflops(tessel_ms),
        timed.into_iter().chain(missing).collect::<Vec<_>>().join(" | "),
    );
    let baseline = baselines.into_iter().min_by(|x, y| x.0.total_cmp(&y.0));
    Ok(Row {
        shape,
        dtype: T::DTYPE,
        tessel: Some(shape.tflops(tessel_ms)),
        baseline: baseline.map(|(ms, how)| (shape.tflops(ms), how)),
        rel_err: Some(rel_err),
    })
}

/// `count` sets of N(0,1) operands for `shape` (C starts at zero; every check poisons it first).
fn make_sets<T: Dtype>(dev: &Device, shape: Shape, count: usize) -> Res<Vec<Set<T>>> {
    (0..count as u64)
        .map(|i| {
            let a = HostTensor::new([shape.m, shape.k], randn(shape.m * shape.k, 2 * i + 1))?;
            let b = HostTensor::new([shape.k, shape.n], randn(shape.k * shape.n, 2 * i + 2))?;
            Ok(Set {
                a: DeviceTensor::from_host(dev, &a)?,
                b: DeviceTensor::from_host(dev, &b)?,
                c: DeviceTensor::zeros(dev, [shape.m, shape.n])?,
            })
        })
        .collect()
}

/// `len` N(0,1) values (Box-Muller over splitmix64), the same for a seed whatever the thread count:
/// each chunk has its own stream. Threads, because the largest shapes need 2^28 values per dtype.
fn randn<T: Element>(len: usize, seed: u64) -> Vec<T> {
    const CHUNK: usize = 1 << 16;
    let mut out = vec![T::default(); len];
    let threads = std::thread::available_parallelism().map_or(1, |n| n.get());
    let mut shares: Vec<Vec<(usize, &mut [T])>> = (0..threads).map(|_| Vec::new()).collect();
    for (index, chunk) in out.chunks_mut(CHUNK).enumerate() {
        shares[index % threads].push((index, chunk));
    }
    std::thread::scope(|scope| {
        for share in shares {
            scope.spawn(move || {
                for (index, chunk) in share {
                    fill_normal(chunk, seed.wrapping_mul(0x9e37_79b9_7f4a_7c15) ^ index as u64);
                }
            });
        }
    });
    out
}

fn fill_normal<T: Element>(chunk: &mut [T], seed: u64) {
    let mut state = seed;
    let mut uniform = move || {
        // splitmix64 (Steele, Lea, Flood 2014), top 53 bits, in (0, 1) so that ln() is finite.
        state = state.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = state;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        ((z ^ (z >> 31)) >> 11) as f64 / (1u64 << 53) as f64 + 0.5 / (1u64 << 53) as f64
    };
    for pair in chunk.chunks_mut(2) {
        let (radius, angle) = ((-2.0 * uniform().ln()).sqrt(), std::f64::consts::TAU * uniform());
        pair[0] = T::from_f64(radius * angle.cos());
        if let Some(second) = pair.get_mut(1) {
            *second = T::from_f64(radius * angle.sin());
        }
    }
}

/// Tessel's C against a reference on the same inputs, both written over NaN: cuBLAS if it loaded,
/// else cuBLASLt, else f64 on the host at sampled elements. Returns the error and the reference.
fn check<T: Dtype>(dev: &Device, baselines: &Baselines, shape: Shape, set: &mut Set<T>) -> Res<(f64, String)> {
    set.c.poison(T::from_f64(f64::NAN))?;
    T::tessel(dev, &set.a, &set.b, &mut set.c)?;
    let ours = set.c.to_host()?;
    let mut failures = Vec::new();
    for (name, reference) in
        [("cublas", baselines.gemm_once(shape, set)), ("cublasLt", baselines.lt_once(dev, shape, set))]
    {
        match reference {
            Ok(reference) => return Ok((rel_err(ours.data(), reference.data()), name.to_string())),
            Err(why) => failures.push(format!("{name}: {why}")),
        }
    }
    let (a, b) = (set.a.to_host()?, set.b.to_host()?);
    let err = sampled_rel_err(shape, &a, &b, &ours);
    Ok((err, format!("f64 host reference at {HOST_SAMPLES} elements ({})", failures.join("; "))))
}

/// `max|ours - reference| / max|reference|`; infinite if either holds a NaN or an infinity (an
/// element left unwritten keeps its NaN poison).
fn rel_err<T: Element>(ours: &[T], reference: &[T]) -> f64 {
    let (mut diff, mut scale) = (0.0f64, 0.0f64);
    for (x, y) in ours.iter().zip(reference) {
        let (x, y) = (x.to_f64(), y.to_f64());
        if !x.is_finite() || !y.is_finite() {
            return f64::INFINITY;
        }
        diff = diff.max((x - y).abs());
        scale = scale.max(y.abs());
    }
    if scale > 0.0 {
        diff / scale
    } else {
        f64::INFINITY
    }
}

/// [`rel_err`] against an f64 product at `HOST_SAMPLES` pseudo-random elements.
fn sampled_rel_err<T: Element>(shape: Shape, a: &HostTensor<T>, b: &HostTensor<T>, c: &HostTensor<T>) -> f64 {
    let (mut diff, mut scale) = (0.0f64, 0.0f64);
    for s in 0..HOST_SAMPLES {
        // A multiplicative hash spreads the samples over rows and columns.
        let (i, j) = ((s * 2_654_435_761) % shape.m, (s * 40_503 + s / 7) % shape.n);
        let want: f64 =
            (0..shape.k).map(|p| a.data()[i * shape.k + p].to_f64() * b.data()[p * shape.n + j].to_f64()).sum();
        let got = c.data()[i * shape.n + j].to_f64();
        if !got.is_finite() {
            return f64::INFINITY;
        }
        diff = diff.max((got - want).abs());
        scale = scale.max(want.abs());
    }
    diff / scale
}

/// Prints the verdict, writes the CSV and prints the table, last. `Ok(false)` if a row failed.
fn report(rows: &[Row], config: &Config) -> Res<bool> {
    let passed = rows.iter().all(Row::passed);
    let table = table(rows);
    let csv: String = table.iter().map(|cells| cells.join(",") + "\n").collect();
    let path = config.out_dir.join("bench_matmul.csv");
    match std::fs::create_dir_all(&config.out_dir).and_then(|()| std::fs::write(&path, csv)) {
        Ok(()) => println!("wrote {}", path.display()),
        Err(err) => println!("could not write {}: {err}", path.display()),
    }
    match passed {
        true => println!("all results within {TOLERANCE:.0e} of the reference"),
        false => println!("FAILED: a run failed or a result is off by more than {TOLERANCE:.0e} (lines above)"),
    }
    println!();
    const WIDTHS: [usize; 7] = [15, 5, 14, 14, 6, 8, 0];
    for cells in &table {
        let padded: Vec<String> = cells.iter().zip(WIDTHS).map(|(cell, w)| format!("{cell:>w$}")).collect();
        println!("{}", padded.join("  "));
    }
    Ok(passed)
}

/// The table: a header, then one line per row; `-` where a part failed.
fn table(rows: &[Row]) -> Vec<[String; 7]> {
    let header = ["shape", "dtype", "tessel TFLOP/s", "cuBLAS TFLOP/s", "ratio", "rel err", "cuBLAS path"];
    let dash = || "-".to_string();
    let body = rows.iter().map(|row| {
        let cublas = row.baseline.as_ref().map(|b| b.0);
        [
            row.shape.to_string(),
            row.dtype.to_string(),
            row.tessel.map_or_else(dash, |t| format!("{t:.1}")),
            cublas.map_or_else(dash, |c| format!("{c:.1}")),
            row.tessel.zip(cublas).map_or_else(dash, |(t, c)| format!("{:.3}", t / c)),
            row.rel_err.map_or_else(dash, |e| format!("{e:.2e}")),
            row.baseline.as_ref().map_or_else(dash, |b| b.1.clone()),
        ]
    });
    std::iter::once(header.map(String::from)).chain(body).collect()
}
