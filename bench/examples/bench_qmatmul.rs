//! bench_qmatmul: tessel's quantized GEMMs (`kernels/src/quantized.rs`: fp8 e4m3 and int8
//! operands, C = diag(a_scale) (A W^T) diag(w_scale) rounded to bf16) against cuBLASLt, in one
//! process, on the same inputs.
//!
//! ```text
//! cargo build --release -p tessel-bench --example bench_qmatmul
//! # then, on the GPU machine (bench/README.md):
//! BENCH_SHAPES=8192x8192x8192 BENCH_OUT=$OUT target/release/examples/bench_qmatmul
//! ```
//!
//! The protocol is `bench_matmul`'s (bench/README.md, "The protocol"), per shape and dtype:
//! - inputs are quantized N(0,1) samples from fixed seeds. fp8: e4m3(x) (|x| < 6, well inside
//!   e4m3's 448), a_scale = 0.5, w_scale = 0.25. int8: round(32 x) clamped to [-127, 127], both
//!   scales 1/32, so that the dequantized values are again about N(0,1). The scales are constants
//!   so that cuBLASLt's per-tensor scaling computes the same product; real ones vary per row of A
//!   (token) and per row of W (output channel), and tessel's kernel reads them as such vectors, so
//!   constants make it no faster;
//! - when one set of operands (A, W, both scale vectors, tessel's C and cuBLASLt's C) is smaller
//!   than twice the L2, launches rotate over enough sets to exceed that, each launch (whichever
//!   contender's) taking the next set;
//! - tessel's C and cuBLASLt's on the same inputs, each written over a poison (NaN; i32::MIN for
//!   int8's i32 C), are compared: `max|c_tessel - c_cublasLt| / max|c_cublasLt|` must be at most
//!   1e-2. The reference is the cuBLASLt product that does tessel's arithmetic (fp8: fast
//!   accumulation, below); for fp8 the line also gives the error against cuBLASLt's default
//!   accumulation, which is more accurate over long K. Without cuBLASLt, tessel's C is checked
//!   against f64 on the host at sampled elements;
//! - the implementations are timed interleaved, round by round: 10 warm-up rounds, then
//!   `BENCH_RUNS` (default 50) rounds, each launch between two CUDA events, median; back to back,
//!   or with `BENCH_GAP_MS` of idle time after each round (`bench_matmul`'s doc says why).
//!
//! The baselines are cuBLASLt's, each the fastest of the first 8 algorithms its heuristic proposes
//! (each timed briefly):
//! - fp8: e4m3 x e4m3 with f32 compute and scale into bf16 C, the per-tensor scales applied through
//!   alpha = a_scale w_scale. Timed twice: with cuBLASLt's default accumulation, which
//!   periodically promotes partial sums from the tensor cores' accumulators into f32 registers,
//!   and with `CUBLASLT_MATMUL_DESC_FAST_ACCUM`, which does not. Tessel's kernel accumulates all of
//!   K in the WGMMA accumulators, as fast accumulation does (on the H200 its C came out
//!   bit-identical to cuBLASLt's fast-accumulation C; against the default accumulation it is off
//!   by up to 1.7e-2 at K = 16384). The cuBLASLt column is the faster of the two, and the last
//!   column says which;
//! - int8: IMMA, i8 x i8 with i32 compute and scale (alpha = 1) into i32 C, what `torch._int_mm`
//!   calls. It writes the accumulator, unscaled: for the check its C is scaled on the host
//!   (`a_scale[i] w_scale[j] c` in f64) and rounded to bf16; timed, it writes 4-byte C where tessel
//!   writes scaled 2-byte C. The table marks it `(i32 C)`.
//!
//! Row-major C[M,N] = A[M,K] W[N,K]^T is column-major C^T[N,M] = W^T A, with W column-major
//! K x N and A column-major K x M (ld K both): cuBLASLt's A is our W, transposed
//! (`CUBLASLT_MATMUL_DESC_TRANSA` = `CUBLAS_OP_T`), its B our A, and its C is N x M (ld N). That
//! is the "TN" layout, the one cuBLASLt's FP8 and IMMA kernels require on Hopper.
//!
//! Rates are 2MNK / median time: TFLOP/s for fp8, TOP/s for int8. The datasheet's dense peak is
//! 1979 for both on the H100 SXM and the H200 (twice the 989 of bf16).
//!
//! Environment: `BENCH_SHAPES` (comma-separated `MxNxK`; the kernels need N % 8 and K % 16, for
//! TMA's 16-byte rows; default
//! `bench_matmul`'s six shapes), `BENCH_DTYPES` (`fp8,int8`), `BENCH_RUNS`, `BENCH_GAP_MS`,
//! `BENCH_OUT` (the directory of `bench_qmatmul.csv`; default `bench/results`),
//! `TESSEL_QMATMUL=wide|mid|overlapped|narrow|split4|skinny16|..` (force a kernel), `BENCH_VARIANTS`
//! (other tessel kernels, e.g. `wide,split8,skinny16k2`, timed in the same rounds and printed on the
//! shape's line, never the baseline). The table is the last lines of the output. Without a GPU
//! the benchmark says so and exits 0; exit status 1 means a check or a run failed.

use tessel_kernels::quantized as kernels;

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

use cudarc::cublaslt::sys::{cublasComputeType_t, cudaDataType, cudaDataType_t};
use tessel::{bf16, Device, DeviceTensor, Element, HostTensor, F8E4M3};

use cublas::{Lt, LtEpilogue, LtMatrices, LtOperands, LtProblem};
use harness::{Config, Contest, Row, Shape, HOST_SAMPLES};
use timing::Op;

/// Errors of the benchmark itself: tessel's, cudarc's, or our own messages.
pub type Res<T> = std::result::Result<T, Box<dyn Error>>;

/// Whether tessel's kernels take `shape`: any M, N and K (the last tiles overhang), but TMA moves
/// rows of whole 16-byte units, so K must be a multiple of 16 and N (C's bf16 rows) of 8 (the
/// launch would say so too, after the inputs are made).
fn fits(shape: Shape) -> Result<(), String> {
    let Shape { m, n, k } = shape;
    if m == 0 || n == 0 || n % 8 != 0 || k == 0 || k % 16 != 0 {
        return Err("the kernel needs N % 8 and K % 16 to be 0, and M > 0".into());
    }
    Ok(())
}

/// An 8-bit operand type: tessel's kernel for it, its inputs, and cuBLASLt's product on it.
trait Quant: Element {
    /// Its name in `BENCH_DTYPES` and the table.
    const NAME: &'static str;
    /// The unit of 2MNK per second.
    const UNIT: &'static str;
    /// a_scale's and w_scale's value (module doc).
    const SCALES: (f32, f32);
    /// What the baseline's name adds: what its C is, where that is not tessel's.
    const LT_NOTE: &'static str;
    /// The element type of cuBLASLt's C.
    type LtC: Element;

    /// The input value of an N(0,1) sample.
    fn quantize(x: f64) -> Self;

    /// Launches tessel's kernel on a set: variant `v` (for `BENCH_VARIANTS`), or the dispatcher's
    /// choice.
    fn tessel(v: Option<kernels::Variant>, dev: &Device, set: &mut QSet<Self>) -> tessel::Result<()>;

    /// cuBLASLt's problems for `shape` (each a contender), the first also the check's reference.
    fn lt_problems(shape: Shape) -> Vec<LtProblem>;

    /// cuBLASLt's C, row-major M x N, as tessel's: scaled where cuBLASLt did not scale it, and
    /// rounded to bf16.
    fn lt_reference(c: &[Self::LtC], a_scale: &[f32], w_scale: &[f32]) -> Vec<bf16>;
}

impl Quant for F8E4M3 {
    const NAME: &'static str = "fp8";
    const UNIT: &'static str = "TFLOP/s";
    const SCALES: (f32, f32) = (0.5, 0.25);
    const LT_NOTE: &'static str = "";
    type LtC = bf16;

    fn quantize(x: f64) -> Self {
        <F8E4M3 as Element>::from_f64(x)
    }

    fn tessel(v: Option<kernels::Variant>, dev: &Device, set: &mut QSet<Self>) -> tessel::Result<()> {
        let (a, w, a_scale, w_scale) = (&set.a, &set.w, &set.a_scale, &set.w_scale);
        match v {
            None => kernels::fp8_matmul(dev, a, w, a_scale, w_scale, &mut set.c),
            Some(v) => kernels::fp8_matmul_variant(v, dev, a, w, a_scale, w_scale, &mut set.c),
        }
    }

    /// Per-tensor scales through alpha; fast accumulation, the arithmetic of tessel's kernel
    /// (and so the reference), then cuBLASLt's default (module doc).
    fn lt_problems(shape: Shape) -> Vec<LtProblem> {
        let alpha = f64::from(Self::SCALES.0) * f64::from(Self::SCALES.1);
        let promoted = tn_problem(shape, cublasComputeType_t::CUBLAS_COMPUTE_32F, cudaDataType_t::CUDA_R_32F, alpha);
        vec![LtProblem { fast_accum: true, ..promoted }, promoted]
    }

    /// Already scaled and in bf16.
    fn lt_reference(c: &[bf16], _: &[f32], _: &[f32]) -> Vec<bf16> {
        c.to_vec()
    }
}

impl Quant for i8 {
    const NAME: &'static str = "int8";
    const UNIT: &'static str = "TOP/s";
    const SCALES: (f32, f32) = (1.0 / 32.0, 1.0 / 32.0);
    const LT_NOTE: &'static str = " (i32 C)";
    type LtC = i32;

    fn quantize(x: f64) -> Self {
        <i8 as Element>::from_f64((32.0 * x).clamp(-127.0, 127.0))
    }

    fn tessel(v: Option<kernels::Variant>, dev: &Device, set: &mut QSet<Self>) -> tessel::Result<()> {
        let (a, w, a_scale, w_scale) = (&set.a, &set.w, &set.a_scale, &set.w_scale);
        match v {
            None => kernels::i8_matmul(dev, a, w, a_scale, w_scale, &mut set.c),
            Some(v) => kernels::i8_matmul_variant(v, dev, a, w, a_scale, w_scale, &mut set.c),
        }
    }

    /// The exact i32 product (alpha = 1). Its sums stay far from overflow: at most
    /// 16384 x 127^2 < 2^28 in magnitude at K = 16384.
    fn lt_problems(shape: Shape) -> Vec<LtProblem> {
        vec![tn_problem(shape, cublasComputeType_t::CUBLAS_COMPUTE_32I, cudaDataType_t::CUDA_R_32I, 1.0)]
    }

    fn lt_reference(c: &[i32], a_scale: &[f32], w_scale: &[f32]) -> Vec<bf16> {
        let n = w_scale.len();
        let scaled = |e: usize, x: i32| f64::from(a_scale[e / n]) * f64::from(w_scale[e % n]) * f64::from(x);
        c.iter().enumerate().map(|(e, &x)| <bf16 as Element>::from_f64(scaled(e, x))).collect()
    }
}

/// cuBLASLt's "TN" problem for `shape` (module doc): C^T[N,M] = alpha W^T A, W stored K x N and
/// read transposed.
fn tn_problem(shape: Shape, compute: cublasComputeType_t, scale_type: cudaDataType, alpha: f64) -> LtProblem {
    let Shape { m, n, k } = shape;
    LtProblem {
        m: n,
        n: m,
        k,
        compute,
        scale_type,
        trans_a: true,
        fast_accum: false,
        alpha,
        epilogue: LtEpilogue::None,
    }
}

/// One set of operands and results; sets rotate so that the working set exceeds the L2.
struct QSet<T: Quant> {
    /// M x K.
    a: DeviceTensor<T>,
    /// N x K.
    w: DeviceTensor<T>,
    /// M and N.
    a_scale: DeviceTensor<f32>,
    w_scale: DeviceTensor<f32>,
    /// Tessel's M x N result.
    c: DeviceTensor<bf16>,
    /// cuBLASLt's M x N result.
    lt_c: DeviceTensor<T::LtC>,
}

/// cuBLASLt's A is our W (module doc).
impl<T: Quant> LtOperands for QSet<T> {
    type In = T;
    type C = T::LtC;

    fn lt_operands(&mut self) -> LtMatrices<'_, T, T::LtC> {
        LtMatrices { a: &self.w, b: &self.a, c: &mut self.lt_c, bias: None }
    }
}

/// Bytes of one [`QSet`].
fn set_bytes<T: Quant>(shape: Shape) -> usize {
    let Shape { m, n, k } = shape;
    (m + n) * k * T::BYTES + (m + n) * f32::BYTES + m * n * (bf16::BYTES + T::LtC::BYTES)
}

fn main() -> ExitCode {
    harness::exit_code("bench_qmatmul", run())
}

/// Benchmarks every shape and dtype, then prints and writes the table. `Ok(false)`: a row failed.
fn run() -> Res<bool> {
    let config = Config::from_env(&["fp8", "int8"], &harness::SHAPES, fits)?;
    let Some((dev, l2)) = harness::open_device("bench_qmatmul", &config)? else { return Ok(true) };
    let lt = Lt::open(&dev);
    match &lt {
        Ok(_) => println!("cuBLASLt: loaded"),
        Err(why) => println!("cuBLASLt: NOT AVAILABLE, tessel is measured alone: {why}"),
    }
    let rows = harness::bench_all(&config, |shape, dtype| match dtype {
        "fp8" => bench::<F8E4M3>(&dev, &lt, shape, l2, &config),
        _ => bench::<i8>(&dev, &lt, shape, l2, &config),
    });
    println!("T(FL)OP/s: 2MNK / median time, TFLOP/s for fp8 and TOP/s for int8 (dense peak of both: 1979)");
    println!("int8 (i32 C): cuBLASLt writes the unscaled i32 accumulator, tessel the scaled bf16 C");
    let header = ["shape", "dtype", "tessel T(FL)OP/s", "cuBLASLt T(FL)OP/s", "ratio", "rel err", "cuBLASLt path"];
    Ok(harness::report(&rows, header, &config, "bench_qmatmul.csv"))
}

/// Checks and times one shape and dtype.
fn bench<T: Quant>(dev: &Device, lt: &Result<Lt, String>, shape: Shape, l2: usize, config: &Config) -> Res<Row> {
    let bytes = set_bytes::<T>(shape);
    let mut sets = make_sets::<T>(dev, shape, harness::set_count(l2, bytes))?;
    let check = check(dev, lt, shape, &mut sets[0])?;
    let tessel: Op<QSet<T>> = Box::new(|set: &mut QSet<T>| Ok(T::tessel(None, dev, set)?));
    let baselines = match lt {
        Ok(lt) => {
            let contender = |problem| lt.op(dev, problem, &mut sets).map(|(op, name)| (op, name + T::LT_NOTE));
            T::lt_problems(shape).into_iter().map(contender).collect()
        }
        Err(_) => vec![Err("cublasLt: not loaded".to_string())],
    };
    // BENCH_VARIANTS: other tessel kernels in the same rounds (timed for tuning, never the baseline).
    let variants = harness::variants(kernels::Variant::named)?.into_iter().map(|v| {
        let op: Op<QSet<T>> = Box::new(move |set: &mut QSet<T>| Ok(T::tessel(Some(v), dev, set)?));
        (op, format!("{v:?}"))
    });
    let contest =
        Contest { shape, dtype: T::NAME, unit: T::UNIT, tessel, baselines, variants: variants.collect(), check };
    harness::contest(dev, config, &mut sets, bytes, contest)
}

/// `count` sets of quantized N(0,1) operands and constant scales for `shape` (the results start at
/// zero; every check poisons them first).
fn make_sets<T: Quant>(dev: &Device, shape: Shape, count: usize) -> Res<Vec<QSet<T>>> {
    let Shape { m, n, k } = shape;
    let (a_scale, w_scale) = (HostTensor::new([m], vec![T::SCALES.0; m])?, HostTensor::new([n], vec![T::SCALES.1; n])?);
    (0..count as u64)
        .map(|i| {
            let a = HostTensor::new([m, k], random::randn(m * k, 2 * i + 1, T::quantize))?;
            let w = HostTensor::new([n, k], random::randn(n * k, 2 * i + 2, T::quantize))?;
            Ok(QSet {
                a: DeviceTensor::from_host(dev, &a)?,
                w: DeviceTensor::from_host(dev, &w)?,
                a_scale: DeviceTensor::from_host(dev, &a_scale)?,
                w_scale: DeviceTensor::from_host(dev, &w_scale)?,
                c: DeviceTensor::zeros(dev, [m, n])?,
                lt_c: DeviceTensor::zeros(dev, [m, n])?,
            })
        })
        .collect()
}

/// Tessel's C against a reference on the same inputs, both written over poison: cuBLASLt's
/// (each of `Quant::lt_problems`, the first the one that counts) if it loaded, else f64 on the
/// host at sampled elements. Returns the error and what it was against.
fn check<T: Quant>(dev: &Device, lt: &Result<Lt, String>, shape: Shape, set: &mut QSet<T>) -> Res<(f64, String)> {
    set.c.poison(bf16::NAN)?;
    T::tessel(None, dev, set)?;
    let ours = set.c.to_host()?;
    let (a_scale, w_scale) = (set.a_scale.to_host()?, set.w_scale.to_host()?);
    let (a_scale, w_scale) = (a_scale.data(), w_scale.data());
    let Ok(lt) = lt else { return host_check(shape, set, ours.data(), "cublasLt: not loaded") };
    let results: Vec<(String, Result<f64, String>)> = T::lt_problems(shape)
        .into_iter()
        .map(|problem| {
            let reference = lt.once(dev, problem, set);
            let reference = reference.map(|c| T::lt_reference(c.data(), a_scale, w_scale));
            (problem.label() + T::LT_NOTE, reference.map(|c| harness::rel_err(ours.data(), &c)))
        })
        .collect();
    let [(name, checked), others @ ..] = &results[..] else { return Err("no cuBLASLt problem".into()) };
    let others: String = others
        .iter()
        .map(|(other, error)| match error {
            Ok(error) => format!(" ({error:.2e} vs {other})"),
            Err(why) => format!(" ({other}: {why})"),
        })
        .collect();
    match checked {
        Ok(error) => Ok((*error, format!("{name}{others}"))),
        Err(why) => host_check(shape, set, ours.data(), &format!("{name}: {why}")),
    }
}

/// Tessel's C against f64 on the host at `HOST_SAMPLES` elements, when cuBLASLt did not run
/// (`why`).
fn host_check<T: Quant>(shape: Shape, set: &QSet<T>, ours: &[bf16], why: &str) -> Res<(f64, String)> {
    let (a, w) = (set.a.to_host()?, set.w.to_host()?);
    let (a_scale, w_scale) = (set.a_scale.to_host()?, set.w_scale.to_host()?);
    let (a, w, a_scale, w_scale, k) = (a.data(), w.data(), a_scale.data(), w_scale.data(), shape.k);
    let err = harness::sampled_rel_err(shape, ours, |i, j| {
        let dot: f64 = (0..k).map(|p| a[i * k + p].to_f64() * w[j * k + p].to_f64()).sum();
        f64::from(a_scale[i]) * f64::from(w_scale[j]) * dot
    });
    Ok((err, format!("f64 host reference at {HOST_SAMPLES} elements ({why})")))
}
