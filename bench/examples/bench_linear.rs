//! bench_linear: tessel's fused linear layer (`kernels/src/linear.rs`: Y = act(X W^T + b) in
//! bf16, the bias and activation in the GEMM's epilogue) against cuBLASLt's GEMM with the same
//! fused epilogue (`CUBLASLT_EPILOGUE_BIAS`, `_RELU_BIAS`, `_GELU_BIAS`), in one process, on the
//! same buffers.
//!
//! ```text
//! cargo build --release -p tessel-bench --example bench_linear
//! # then, on the GPU machine:
//! BENCH_SHAPES=8192x14336x4096 BENCH_OUT=/tmp target/release/examples/bench_linear
//! ```
//!
//! The protocol is `bench_matmul`'s (docs/performance.md, "How we measure"): inputs N(0,1) scaled by
//! K^-1/4 (so that X W^T is of order 1, where the activations bend) and a N(0,1) bias, from fixed
//! seeds; operand sets rotated beyond the L2, each launch taking the next; tessel's Y and
//! cuBLASLt's on the same inputs, each written over NaN, compared (`max|y_tessel - y_lt| /
//! max|y_lt|` at most 1e-2: both use the tanh form of GELU); timed interleaved, launch by launch,
//! 10 warm-up rounds and `BENCH_RUNS` (default 50) timed ones, medians. TFLOP/s count the GEMM
//! (2MNK), not the epilogue.
//!
//! Row-major Y = X W^T is column-major Y^T = W X^T: cuBLASLt's A is W (stored K x N column-major,
//! read transposed), its B is X^T (K x M), its D is Y^T (N x M) and the bias runs down D's rows.
//!
//! Environment: `BENCH_SHAPES` (comma-separated `MxNxK`, Y = X[M,K] W[N,K]^T; N and K multiples of
//! 8, for TMA's 16-byte rows; default: the projections of a
//! Llama-3-8B MLP layer for 512, 1024, 4096 and 8192 tokens, and 8192^3), `BENCH_DTYPES` (here
//! the epilogues: `bias,relu,gelu`), `BENCH_RUNS`, `BENCH_GAP_MS`, `BENCH_OUT` (the directory of
//! `bench_linear.csv`; default `bench/results`), `BENCH_VARIANTS` (other kernels, as
//! `TESSEL_LINEAR` names them: `wide,mid,overlapped,narrow`, `split4`, `skinny16`, `skinny64x2`, ..).
//! The table is the last lines of the output. Without a GPU the benchmark says so and exits 0;
//! exit status 1 means a check or a run failed.

use tessel_kernels::linear as kernels;

#[path = "bench_support/cublas.rs"]
mod cublas;
#[path = "bench_support/harness.rs"]
#[allow(dead_code)] // The GEMM benchmarks' default shapes are not used here.
mod harness;
#[path = "bench_support/random.rs"]
mod random;
#[path = "bench_support/table.rs"]
mod table;
#[path = "bench_support/timing.rs"]
mod timing;

use std::error::Error;
use std::process::ExitCode;

use cudarc::cublaslt::sys::{cublasComputeType_t, cudaDataType_t};
use tessel::{bf16, Device, DeviceTensor, HostTensor};

use cublas::{Lt, LtEpilogue, LtMatrices, LtOperands, LtProblem};
use harness::{Config, Contest, Row, Shape, HOST_SAMPLES};
use kernels::Activation;
use timing::Op;

/// Errors of the benchmark itself: tessel's, cudarc's, or our own messages.
pub type Res<T> = std::result::Result<T, Box<dyn Error>>;

/// Tokens x (out, in) features: a Llama-3-8B MLP's up (and gate) and down projections, for 512,
/// 1024, 4096 and 8192 tokens; and 8192^3.
const SHAPES: [(usize, usize, usize); 9] = [
    (512, 14336, 4096),
    (512, 4096, 14336),
    (1024, 14336, 4096),
    (1024, 4096, 14336),
    (4096, 14336, 4096),
    (4096, 4096, 14336),
    (8192, 14336, 4096),
    (8192, 4096, 14336),
    (8192, 8192, 8192),
];

/// The epilogues compared: their names in `BENCH_DTYPES` and the table, tessel's activation and
/// cuBLASLt's epilogue.
const EPILOGUES: [(&str, Activation, LtEpilogue); 3] = [
    ("bias", Activation::None, LtEpilogue::Bias),
    ("relu", Activation::Relu, LtEpilogue::ReluBias),
    ("gelu", Activation::Gelu, LtEpilogue::GeluBias),
];

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

/// One set of operands and results; sets rotate so that the working set exceeds the L2.
struct Set {
    /// M x K.
    x: DeviceTensor<bf16>,
    /// N x K.
    w: DeviceTensor<bf16>,
    /// N.
    b: DeviceTensor<bf16>,
    /// tessel's M x N result.
    y: DeviceTensor<bf16>,
    /// cuBLASLt's M x N result.
    lt_y: DeviceTensor<bf16>,
}

/// cuBLASLt's A is W, its B is X (module doc).
impl LtOperands for Set {
    type In = bf16;
    type C = bf16;

    fn lt_operands(&mut self) -> LtMatrices<'_, bf16, bf16> {
        LtMatrices { a: &self.w, b: &self.x, c: &mut self.lt_y, bias: Some(&self.b) }
    }
}

/// cuBLASLt's problem for `shape` and `epilogue` (module doc).
fn lt_problem(shape: Shape, epilogue: LtEpilogue) -> LtProblem {
    let Shape { m, n, k } = shape;
    LtProblem {
        m: n,
        n: m,
        k,
        compute: cublasComputeType_t::CUBLAS_COMPUTE_32F,
        scale_type: cudaDataType_t::CUDA_R_32F,
        trans_a: true,
        fast_accum: false,
        alpha: 1.0,
        epilogue,
    }
}

fn main() -> ExitCode {
    harness::exit_code("bench_linear", run())
}

/// Benchmarks every shape and epilogue, then prints and writes the table. `Ok(false)`: a row failed.
fn run() -> Res<bool> {
    let names: Vec<&'static str> = EPILOGUES.iter().map(|e| e.0).collect();
    let config = Config::from_env(&names, &SHAPES, fits)?;
    let Some((dev, l2)) = harness::open_device("bench_linear", &config)? else { return Ok(true) };
    let lt = Lt::open(&dev);
    match &lt {
        Ok(_) => println!("cuBLASLt: loaded"),
        Err(why) => println!("cuBLASLt: NOT AVAILABLE, tessel is measured alone: {why}"),
    }
    let rows = harness::bench_all(&config, |shape, name| {
        let &(_, act, epilogue) = EPILOGUES.iter().find(|e| e.0 == name).ok_or("unknown epilogue")?;
        bench(&dev, &lt, shape, l2, &config, name, act, epilogue)
    });
    println!("TFLOP/s: 2MNK / median time (the epilogue's work not counted); bf16 X, W, b and Y");
    let header = ["shape", "epilogue", "tessel TFLOP/s", "cuBLASLt TFLOP/s", "ratio", "rel err", "cuBLASLt path"];
    Ok(harness::report(&rows, header, &config, "bench_linear.csv"))
}

/// Checks and times one shape and epilogue.
#[allow(clippy::too_many_arguments)]
fn bench(
    dev: &Device,
    lt: &Result<Lt, String>,
    shape: Shape,
    l2: usize,
    config: &Config,
    name: &'static str,
    act: Activation,
    epilogue: LtEpilogue,
) -> Res<Row> {
    let Shape { m, n, k } = shape;
    let bytes = (m * k + n * k + n + 2 * m * n) * 2;
    let mut sets = make_sets(dev, shape, harness::set_count(l2, bytes))?;
    let check = check(dev, lt, shape, act, epilogue, &mut sets[0])?;
    let tessel: Op<Set> =
        Box::new(move |set: &mut Set| Ok(kernels::linear_bf16(dev, &set.x, &set.w, &set.b, &mut set.y, act)?));
    let baselines = match lt {
        Ok(lt) => vec![lt.op(dev, lt_problem(shape, epilogue), &mut sets)],
        Err(_) => vec![Err("cublasLt: not loaded".to_string())],
    };
    // BENCH_VARIANTS: other tile sizes in the same rounds (timed for tuning, never the baseline).
    let variants = harness::variants(kernels::Variant::named)?.into_iter().map(|v| {
        let op: Op<Set> = Box::new(move |set: &mut Set| {
            Ok(kernels::linear_bf16_variant(v, dev, &set.x, &set.w, &set.b, &mut set.y, act)?)
        });
        (op, format!("{v:?}"))
    });
    let contest =
        Contest { shape, dtype: name, unit: "TFLOP/s", tessel, baselines, variants: variants.collect(), check };
    harness::contest(dev, config, &mut sets, bytes, contest)
}

/// `count` sets of inputs for `shape` (module doc); results start at zero.
fn make_sets(dev: &Device, shape: Shape, count: usize) -> Res<Vec<Set>> {
    let Shape { m, n, k } = shape;
    let spread = (k as f64).powf(-0.25);
    let scaled = move |x: f64| bf16::from_f64(spread * x);
    (0..count as u64)
        .map(|i| {
            let x = HostTensor::new([m, k], random::randn(m * k, 3 * i + 1, scaled))?;
            let w = HostTensor::new([n, k], random::randn(n * k, 3 * i + 2, scaled))?;
            let b = HostTensor::new([n], random::randn(n, 3 * i + 3, bf16::from_f64))?;
            Ok(Set {
                x: DeviceTensor::from_host(dev, &x)?,
                w: DeviceTensor::from_host(dev, &w)?,
                b: DeviceTensor::from_host(dev, &b)?,
                y: DeviceTensor::zeros(dev, [m, n])?,
                lt_y: DeviceTensor::zeros(dev, [m, n])?,
            })
        })
        .collect()
}

/// tessel's Y against cuBLASLt's on the same inputs, both written over NaN; f64 on the host at
/// sampled elements if cuBLASLt did not load or run.
fn check(
    dev: &Device,
    lt: &Result<Lt, String>,
    shape: Shape,
    act: Activation,
    epilogue: LtEpilogue,
    set: &mut Set,
) -> Res<(f64, String)> {
    set.y.poison(bf16::NAN)?;
    kernels::linear_bf16(dev, &set.x, &set.w, &set.b, &mut set.y, act)?;
    let ours = set.y.to_host()?;
    let why = match lt {
        Ok(lt) => match lt.once(dev, lt_problem(shape, epilogue), set) {
            Ok(reference) => {
                let label = lt_problem(shape, epilogue).label();
                return Ok((harness::rel_err(ours.data(), reference.data()), label));
            }
            Err(why) => why,
        },
        Err(_) => "cublasLt: not loaded".to_string(),
    };
    let (x, w, b) = (set.x.to_host()?, set.w.to_host()?, set.b.to_host()?);
    let (x, w, b, k) = (x.data(), w.data(), b.data(), shape.k);
    let err = harness::sampled_rel_err(shape, ours.data(), |i, j| {
        let dot: f64 = (0..k).map(|p| x[i * k + p].to_f64() * w[j * k + p].to_f64()).sum();
        act.apply(dot + b[j].to_f64())
    });
    Ok((err, format!("f64 host reference at {HOST_SAMPLES} elements ({why})")))
}
