//! What the GEMM benchmarks (`bench_matmul`, `bench_qmatmul`) share: the shapes and the
//! environment, the device, the rotation rule, the error metrics, the interleaved timing of tessel
//! against its baselines, and the report (bench/README.md, "The protocol").

use std::fmt;
use std::path::PathBuf;
use std::process::ExitCode;
use std::time::Duration;

use cudarc::driver::sys::CUdevice_attribute;
use tessel::{Device, Element};

use crate::timing::{time_interleaved, Op};
use crate::Res;

/// The shapes of issue 4: squares, a short and a long K, and a skinny M (M x N x K).
pub const SHAPES: [(usize, usize, usize); 6] = [
    (2048, 2048, 2048),
    (4096, 4096, 4096),
    (8192, 8192, 8192),
    (8192, 8192, 1024),
    (8192, 8192, 16384),
    (128, 8192, 8192),
];
/// Warm-up rounds before timing (clocks up, modules loaded, tensor maps cached).
const WARMUP: usize = 10;
const DEFAULT_RUNS: usize = 50;
/// The acceptance bound on the relative error against the reference.
pub const TOLERANCE: f64 = 1e-2;
/// The H100's L2, if the device does not say (the H200 reports 60 MB).
const FALLBACK_L2: usize = 50 << 20;
/// Elements of tessel's result checked against an f64 host reference when no library ran.
pub const HOST_SAMPLES: usize = 2048;

/// A problem: C[M,N] from an M x K and a K x N operand (as each benchmark lays them out).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Shape {
    pub m: usize,
    pub n: usize,
    pub k: usize,
}

impl Shape {
    /// Parses `MxNxK`; `fits` says why tessel's kernel cannot take a shape (the launch would say so
    /// too, but only after the inputs are made).
    fn parse(text: &str, fits: &impl Fn(Shape) -> Result<(), String>) -> Res<Shape> {
        let dims: Vec<usize> = text.trim().split('x').map(str::parse).collect::<Result<_, _>>()?;
        let [m, n, k] = dims[..] else { return Err(format!("shape `{text}` is not MxNxK").into()) };
        let shape = Shape { m, n, k };
        fits(shape).map_err(|why| format!("shape `{text}`: {why}"))?;
        Ok(shape)
    }

    /// TFLOP/s (TOP/s for integer operands) of one product taking `ms` milliseconds (2MNK
    /// operations).
    pub fn tflops(self, ms: f64) -> f64 {
        2.0 * (self.m * self.n * self.k) as f64 / (ms * 1e-3) / 1e12
    }
}

impl fmt::Display for Shape {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}x{}x{}", self.m, self.n, self.k)
    }
}

/// What the environment asks for (the benchmarks' module docs).
pub struct Config {
    pub shapes: Vec<Shape>,
    pub dtypes: Vec<&'static str>,
    runs: usize,
    /// `BENCH_GAP_MS`: idle time after each timed round (none: back to back).
    gap: Option<Duration>,
    out_dir: PathBuf,
}

impl Config {
    /// Reads `BENCH_SHAPES` (each shape checked by `fits`; `defaults` without it), `BENCH_DTYPES`
    /// (a list of `dtypes`, all of them by default), `BENCH_RUNS`, `BENCH_GAP_MS` and `BENCH_OUT`.
    pub fn from_env(
        dtypes: &[&'static str],
        defaults: &[(usize, usize, usize)],
        fits: impl Fn(Shape) -> Result<(), String>,
    ) -> Res<Config> {
        let var = |name| std::env::var(name).ok().filter(|v: &String| !v.trim().is_empty());
        let shapes = match var("BENCH_SHAPES") {
            Some(list) => list.split(',').map(|text| Shape::parse(text, &fits)).collect::<Res<_>>()?,
            None => defaults.iter().map(|&(m, n, k)| Shape { m, n, k }).collect(),
        };
        let dtype = |text: &str| {
            let known = dtypes.iter().find(|&&d| d == text.trim());
            known.copied().ok_or_else(|| format!("BENCH_DTYPES: `{text}` is not one of {}", dtypes.join(", ")))
        };
        let dtypes = match var("BENCH_DTYPES") {
            Some(list) => list.split(',').map(dtype).collect::<Result<_, _>>()?,
            None => dtypes.to_vec(),
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

/// `main`'s exit status: 0 if every row passed, 1 if one failed or the benchmark stopped on an
/// error (printed).
pub fn exit_code(bench: &str, outcome: Res<bool>) -> ExitCode {
    match outcome {
        Ok(true) => ExitCode::SUCCESS,
        Ok(false) => ExitCode::FAILURE,
        Err(err) => {
            eprintln!("{bench}: error: {err}");
            ExitCode::FAILURE
        }
    }
}

/// The GPU and its L2 size, after a line saying how `bench` measures; `None` (said so) without a
/// Hopper GPU.
pub fn open_device(bench: &str, config: &Config) -> Res<Option<(Device, usize)>> {
    if !Device::is_available() {
        let why = Device::new(0).err().map_or_else(String::new, |e| e.to_string());
        println!("{bench}: no Hopper GPU here ({why})");
        println!("{bench}: nothing to measure; run it on the GPU machine (bench/README.md)");
        return Ok(None);
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
        "{bench} on {}: L2 {} MiB, {WARMUP} warm-up + {} timed rounds ({pace}), median",
        dev.name(),
        l2 >> 20,
        config.runs
    );
    Ok(Some((dev, l2)))
}

/// How many operand sets of `set_bytes` each a launch rotates over: enough that it finds none of
/// its operands in the L2 from the launch before (together they exceed twice the L2), but at most
/// [`MAX_SETS`].
pub fn set_count(l2: usize, set_bytes: usize) -> usize {
    (2 * l2).div_ceil(set_bytes).clamp(1, MAX_SETS)
}

/// The most operand sets a shape gets. Sets of a few KiB (1 x 8 x 8) would otherwise number
/// near a million, each allocated and filled: on the H200 a benchmark of 1 x 8 x 8 did not finish
/// within the ten minutes a device command may run. Shapes that small fit the L2 in any case
/// (4096 sets of 16 KiB are 64 MiB), and their times are the launches'.
pub const MAX_SETS: usize = 4096;

/// `max|ours - reference| / max|reference|`; infinite if either holds a NaN or an infinity (an
/// element left unwritten keeps its NaN poison).
pub fn rel_err<T: Element>(ours: &[T], reference: &[T]) -> f64 {
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

/// [`rel_err`] of the row-major M x N `c` against `want(i, j)` (an f64 product) at
/// `HOST_SAMPLES` pseudo-random elements.
pub fn sampled_rel_err<T: Element>(shape: Shape, c: &[T], want: impl Fn(usize, usize) -> f64) -> f64 {
    let (mut diff, mut scale) = (0.0f64, 0.0f64);
    for s in 0..HOST_SAMPLES {
        // A multiplicative hash spreads the samples over rows and columns.
        let (i, j) = ((s * 2_654_435_761) % shape.m, (s * 40_503 + s / 7) % shape.n);
        let (got, want) = (c[i * shape.n + j].to_f64(), want(i, j));
        if !got.is_finite() {
            return f64::INFINITY;
        }
        diff = diff.max((got - want).abs());
        scale = scale.max(want.abs());
    }
    diff / scale
}

/// Benchmarks every shape and dtype of `config` with `bench`; a failure is printed and gives a
/// failed row.
pub fn bench_all(config: &Config, mut bench: impl FnMut(Shape, &'static str) -> Res<Row>) -> Vec<Row> {
    let mut rows = Vec::new();
    for &shape in &config.shapes {
        for &dtype in &config.dtypes {
            rows.push(bench(shape, dtype).unwrap_or_else(|err| {
                println!("{shape} {dtype}: FAILED: {err}");
                Row { shape, dtype, tessel: None, baseline: None, rel_err: None }
            }));
        }
    }
    rows
}

/// One shape and dtype: tessel and its baselines, to be timed on the same operand sets.
pub struct Contest<'a, S> {
    pub shape: Shape,
    pub dtype: &'static str,
    /// The rate's unit: `TFLOP/s`, or `TOP/s` for integer operands.
    pub unit: &'static str,
    pub tessel: Op<'a, S>,
    /// Each baseline with its name, or why it is missing.
    pub baselines: Vec<Result<(Op<'a, S>, String), String>>,
    /// Other tessel kernels with their names (`BENCH_VARIANTS`): timed and printed with the
    /// others, never the baseline.
    pub variants: Vec<(Op<'a, S>, String)>,
    /// The relative error of tessel's checked result, and what it was checked against.
    pub check: (f64, String),
}

/// Times a contest interleaved (bench_support/timing.rs), rotating over `sets` (of `set_bytes`
/// each), prints its line and returns its row, with the fastest baseline.
pub fn contest<S>(dev: &Device, config: &Config, sets: &mut [S], set_bytes: usize, contest: Contest<S>) -> Res<Row> {
    let Contest { shape, dtype, unit, tessel, baselines, variants, check: (rel_err, against) } = contest;
    let mut ops = vec![tessel];
    let (mut names, mut missing) = (Vec::new(), Vec::new());
    for baseline in baselines {
        match baseline {
            Ok((op, name)) => {
                ops.push(op);
                names.push(name);
            }
            Err(why) => missing.push(why),
        }
    }
    let found = names.len();
    for (op, name) in variants {
        ops.push(op);
        names.push(format!("tessel:{name}"));
    }
    let times = time_interleaved(dev, config.runs, WARMUP, sets, &mut ops, config.gap)?;
    let timed: Vec<(f64, String)> = times[1..].iter().copied().zip(names).collect();
    let rate = |ms: f64| format!("{ms:.4} ms {:.1} {unit}", shape.tflops(ms));
    let others: Vec<String> = timed.iter().map(|(ms, how)| format!("{how} {}", rate(*ms))).chain(missing).collect();
    println!(
        "{shape} {dtype}: {} set(s) of {} MiB | tessel {} | {} | rel err {rel_err:.2e} vs {against}",
        sets.len(),
        set_bytes >> 20,
        rate(times[0]),
        others.join(" | "),
    );
    let baseline = timed.into_iter().take(found).min_by(|x, y| x.0.total_cmp(&y.0));
    Ok(Row {
        shape,
        dtype,
        tessel: Some(shape.tflops(times[0])),
        baseline: baseline.map(|(ms, how)| (shape.tflops(ms), how)),
        rel_err: Some(rel_err),
    })
}

/// The kernel variants `BENCH_VARIANTS` names (comma-separated, as `TESSEL_MATMUL` or
/// `TESSEL_QMATMUL` takes them): contenders beside the dispatcher's choice, for tuning.
pub fn variants<V>(named: impl Fn(&str) -> Option<V>) -> Res<Vec<V>> {
    let list = std::env::var("BENCH_VARIANTS").unwrap_or_default();
    let parse = |name: &str| named(name).ok_or_else(|| format!("BENCH_VARIANTS: no kernel variant `{}`", name.trim()));
    Ok(list.split(',').filter(|name| !name.trim().is_empty()).map(parse).collect::<Result<_, _>>()?)
}

/// One line of the table; `None` where that part failed (the reason was printed).
pub struct Row {
    shape: Shape,
    dtype: &'static str,
    /// tessel's TFLOP/s (TOP/s).
    tessel: Option<f64>,
    /// The fastest baseline's TFLOP/s (TOP/s), and which it was.
    baseline: Option<(f64, String)>,
    rel_err: Option<f64>,
}

impl Row {
    fn passed(&self) -> bool {
        self.tessel.is_some() && self.rel_err.is_some_and(|e| e <= TOLERANCE)
    }
}

/// Writes the table to `file` in the output directory as CSV, prints the verdict, then the table,
/// last; `header` names its columns (shape, dtype, tessel, baseline, ratio, rel err, baseline's
/// name). `false` if a row failed.
pub fn report(rows: &[Row], header: [&str; 7], config: &Config, file: &str) -> bool {
    let passed = rows.iter().all(Row::passed);
    // The last column, the baseline's name, is free text.
    crate::table::report(&table(rows, header), &config.out_dir, file, passed, TOLERANCE, 1);
    passed
}

/// The table: a header, then one line per row; `-` where a part failed.
fn table(rows: &[Row], header: [&str; 7]) -> Vec<[String; 7]> {
    let dash = || "-".to_string();
    let body = rows.iter().map(|row| {
        let baseline = row.baseline.as_ref().map(|b| b.0);
        [
            row.shape.to_string(),
            row.dtype.to_string(),
            row.tessel.map_or_else(dash, |t| format!("{t:.1}")),
            baseline.map_or_else(dash, |b| format!("{b:.1}")),
            row.tessel.zip(baseline).map_or_else(dash, |(t, b)| format!("{:.3}", t / b)),
            row.rel_err.map_or_else(dash, |e| format!("{e:.2e}")),
            row.baseline.as_ref().map_or_else(dash, |b| b.1.clone()),
        ]
    });
    std::iter::once(header.map(String::from)).chain(body).collect()
}
