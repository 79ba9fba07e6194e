//! bench_attention: tessel's flash attention, the forward pass (`kernels/src/attention.rs`) and
//! the backward pass (`kernels/src/attention_backward.rs`), timed with CUDA events and checked
//! against an f64 reference.
//!
//! ```text
//! cargo build --release -p tessel-bench --example bench_attention
//! # then, on the GPU machine (bench/README.md):
//! BENCH_SEQS=4096 BENCH_DIMS=128 BENCH_OUT=/tmp target/release/examples/bench_attention
//! ```
//!
//! The shapes follow FlashAttention-3's forward benchmark: 16384 tokens in all (batch x sequence
//! length) and a model width of 2048, so `heads` = (16384 / S) x (2048 / D) query heads of S
//! queries over T = S keys, without and with a causal mask. FLOPs are those of the two products,
//! 4 x heads x S x T x D (query heads), halved for causal attention; a backward pass counts 2.5
//! times its forward's (FlashAttention's convention: five products of the forward's size, where
//! the forward has two).
//! The grouped-query cases (GQA) are a Llama-style layer's: 32 query heads of D = 128 per sequence
//! sharing 8 or 4 K/V heads (`BENCH_GQA`), 16384 tokens in all, so `heads` = (16384 / S) x 32 query
//! heads over `kv heads` = (16384 / S) x HK, for S of 2048 and more.
//! Per case: inputs N(0,1) from fixed seeds; the output, written over NaN, is compared with an f64
//! reference on 64 rows spread over heads and queries (max error relative to each row's largest
//! value, at most 1e-2); 10 warm-up launches, then `BENCH_RUNS` (default 50) launches each between
//! two CUDA events, back to back (or, with `BENCH_GAP_MS`, the GPU idle that long after each, so
//! that it stays cool: `bench_matmul`'s protocols); the median is reported. A backward case: the
//! training forward (`attention_train_*`) leaves O and the row log-sum-exps, dO is N(0,1), and
//! the timed launch is `attention_backward::launch` alone (its preparation, dK/dV and dQ kernels,
//! and workspaces);
//! dQ, dK and dV, written over NaN, are compared on 64 rows each with the f64 gradients of the
//! same inputs (taking the GPU's O and lse as the forward's, as the backward does); a row whose
//! terms cancel (causal query 0's dQ is 0 exactly) is measured against a thousandth of its terms'
//! size instead (`kernels/examples/support/attention_grad_ref.rs`). One set of Q, K and V (192 MiB
//! in bf16) exceeds the L2 many times over, so no launch finds its inputs left there by the one
//! before.
//!
//! The baselines (cuDNN and FlashAttention-2 through PyTorch, Pallas's Mosaic GPU attention) are
//! measured by `bench/attention_baselines.py` on the same shapes, with the same columns.
//!
//! Environment: `BENCH_SEQS` (comma-separated, each dividing 16384; default
//! 1024,2048,4096,8192,16384), `BENCH_DIMS` (`64,128`), `BENCH_DTYPES` (`bf16,f16`), `BENCH_CAUSAL`
//! (`0,1`: without and with the mask), `BENCH_GQA` (K/V heads per 32 query heads of the GQA
//! cases, default `8,4`; `none` for none; they take the dtypes, masks and the lengths from 2048 on
//! of the lists above), `BENCH_PASSES` (`fwd,bwd`), `BENCH_RUNS`, `BENCH_GAP_MS`,
//! `BENCH_OUT` (the CSV's directory; default `bench/results`); the backward's own
//! `TESSEL_ATTN_BWD_DQ` (`separate`, `fused`, `fused-eager`, `fused-red`) and
//! `TESSEL_ATTN_BWD_ORDER` (`heads`, `sections`, `sections:N`) pick the kernels it times
//! (`kernels/src/attention_backward.rs`), and the output's second line names them. The table is
//! the last lines of the output. Without a GPU the benchmark says so and exits 0; exit status 1
//! means a check or a run failed.

use tessel_kernels::attention as kernels;
#[path = "../../kernels/examples/support/attention_grad_ref.rs"]
#[allow(dead_code)] // finite differences are the tests'
mod grad_reference;
#[path = "../../kernels/examples/support/attention_ref.rs"]
#[allow(dead_code)] // the training forward's lse check is the tests'
mod reference;
#[path = "bench_support/table.rs"]
mod table;
#[path = "bench_support/timing.rs"]
mod timing;

use std::error::Error;
use std::path::PathBuf;
use std::process::ExitCode;
use std::time::Duration;

use kernels::{Launch, TrainLaunch};
use tessel::{bf16, f16, Device, DeviceTensor, Element, HostTensor};
use tessel_kernels::attention_backward::{self as backward, Backward};

pub type Res<T> = std::result::Result<T, Box<dyn Error>>;

const TOKENS: usize = 16384;
const WIDTH: usize = 2048;
const WARMUP: usize = 10;
const CHECKED_ROWS: usize = 64;
const TOLERANCE: f64 = 1e-2;
/// The GQA cases' query heads per sequence and head dimension.
const GQA_HEADS: usize = 32;
const GQA_D: usize = 128;

struct Config {
    seqs: Vec<usize>,
    dims: Vec<usize>,
    dtypes: Vec<&'static str>,
    causal: Vec<bool>,
    gqa: Vec<usize>,
    passes: Vec<Pass>,
    runs: usize,
    /// Idle time after each timed launch (`BENCH_GAP_MS`): the cool protocol.
    gap: Option<Duration>,
    out_dir: PathBuf,
}

impl Config {
    fn from_env() -> Res<Config> {
        let var = |name: &str| std::env::var(name).ok().filter(|v| !v.trim().is_empty());
        let numbers = |name: &str, default: &[usize]| -> Res<Vec<usize>> {
            match var(name) {
                Some(list) => list
                    .split(',')
                    .map(|n| n.trim().parse::<usize>().map_err(|e| format!("{name}: `{n}`: {e}").into()))
                    .collect(),
                None => Ok(default.to_vec()),
            }
        };
        let seqs = numbers("BENCH_SEQS", &[1024, 2048, 4096, 8192, 16384])?;
        if let Some(&s) = seqs.iter().find(|&&s| s == 0 || !TOKENS.is_multiple_of(s)) {
            return Err(format!("BENCH_SEQS: {s} does not divide {TOKENS} (the heads are {TOKENS} / S)").into());
        }
        let dims = numbers("BENCH_DIMS", &[64, 128])?;
        if let Some(d) = dims.iter().find(|&&d| d != 64 && d != 128) {
            return Err(format!("BENCH_DIMS: {d} is not 64 or 128").into());
        }
        let dtypes = match var("BENCH_DTYPES") {
            Some(list) => list.split(',').map(|d| dtype(d.trim())).collect::<Res<_>>()?,
            None => vec!["bf16", "f16"],
        };
        let causal = numbers("BENCH_CAUSAL", &[0, 1])?;
        if let Some(c) = causal.iter().find(|&&c| c > 1) {
            return Err(format!("BENCH_CAUSAL: {c} is not 0 or 1").into());
        }
        let causal = causal.into_iter().map(|c| c == 1).collect();
        let gqa = match var("BENCH_GQA").as_deref().map(str::trim) {
            Some("none") => Vec::new(),
            _ => numbers("BENCH_GQA", &[8, 4])?,
        };
        if let Some(hk) = gqa.iter().find(|&&hk| hk == 0 || !GQA_HEADS.is_multiple_of(hk)) {
            return Err(format!("BENCH_GQA: {hk} K/V heads do not divide {GQA_HEADS} query heads").into());
        }
        let passes = match var("BENCH_PASSES") {
            Some(list) => list.split(',').map(|p| Pass::named(p.trim())).collect::<Res<_>>()?,
            None => vec![Pass::Forward, Pass::Backward],
        };
        let runs = match var("BENCH_RUNS") {
            Some(n) => n.trim().parse::<usize>().map_err(|e| format!("BENCH_RUNS=`{n}`: {e}"))?.max(1),
            None => 50,
        };
        let gap = match var("BENCH_GAP_MS") {
            Some(ms) => ms.trim().parse::<u64>().map_err(|e| format!("BENCH_GAP_MS=`{ms}`: {e}"))?,
            None => 0,
        };
        let gap = (gap > 0).then(|| Duration::from_millis(gap));
        let out_dir = var("BENCH_OUT").map_or_else(|| PathBuf::from("bench/results"), PathBuf::from);
        Ok(Config { seqs, dims, dtypes, causal, gqa, passes, runs, gap, out_dir })
    }
}

fn dtype(name: &str) -> Res<&'static str> {
    match name {
        "bf16" => Ok("bf16"),
        "f16" => Ok("f16"),
        other => Err(format!("BENCH_DTYPES: `{other}` is not bf16 or f16").into()),
    }
}

/// Which pass a case times.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Pass {
    Forward,
    Backward,
}

impl Pass {
    fn named(name: &str) -> Res<Pass> {
        match name {
            "fwd" => Ok(Pass::Forward),
            "bwd" => Ok(Pass::Backward),
            other => Err(format!("BENCH_PASSES: `{other}` is not fwd or bwd").into()),
        }
    }

    fn name(self) -> &'static str {
        match self {
            Pass::Forward => "fwd",
            Pass::Backward => "bwd",
        }
    }
}

/// One measured case; `None` where it failed.
struct Row {
    pass: Pass,
    dtype: &'static str,
    heads: usize,
    kv_heads: usize,
    seq: usize,
    d: usize,
    causal: bool,
    ms: Option<f64>,
    rel_err: Option<f64>,
}

impl Row {
    fn tflops(&self) -> Option<f64> {
        let forward = 4.0 * (self.heads * self.seq * self.seq * self.d) as f64 / if self.causal { 2.0 } else { 1.0 };
        let flops = forward * if self.pass == Pass::Backward { 2.5 } else { 1.0 };
        self.ms.map(|ms| flops / ms / 1e9)
    }

    fn passed(&self) -> bool {
        self.ms.is_some() && self.rel_err.is_some_and(|e| e <= TOLERANCE)
    }
}

/// Checks and times one case.
fn bench<T: Element>(dev: &Device, launch: Launch<T>, row: &mut Row, config: &Config) -> Res<()> {
    let (heads, s, d, causal) = (row.heads, row.seq, row.d, row.causal);
    let qkv = reference::inputs_gqa::<T>(heads, row.kv_heads, s, s, d)?;
    let [q, k, v] = qkv.each_ref().map(|x| DeviceTensor::from_host(dev, x));
    let (q, k, v) = (q?, k?, v?);
    let mut o = DeviceTensor::<T>::zeros(dev, [heads, s, d])?;
    o.poison(T::from_f64(f64::NAN))?;
    let scale = 1.0 / (d as f32).sqrt();
    launch(dev, &q, &k, &v, &mut o, scale, causal)?;
    row.rel_err = Some(reference::max_rel_err(&qkv, &o.to_host()?, scale as f64, CHECKED_ROWS, causal));
    let mut sets = [()];
    row.ms = Some(timing::time_median(dev, config.runs, WARMUP, config.gap, &mut sets, |_| {
        Ok(launch(dev, &q, &k, &v, &mut o, scale, causal)?)
    })?);
    Ok(())
}

/// Checks and times one backward case: the largest row error of dQ, dK and dV.
fn bench_backward<T: Backward>(dev: &Device, forward: TrainLaunch<T>, row: &mut Row, config: &Config) -> Res<()> {
    let (heads, kv_heads, s, d, causal) = (row.heads, row.kv_heads, row.seq, row.d, row.causal);
    let [q, k, v] = reference::inputs_gqa::<T>(heads, kv_heads, s, s, d)?;
    let d_o = HostTensor::new([heads, s, d], reference::randn(heads * s * d, 4))?;
    let up = |x: &HostTensor<T>| DeviceTensor::from_host(dev, x);
    let (q_gpu, k_gpu, v_gpu, d_o_gpu) = (up(&q)?, up(&k)?, up(&v)?, up(&d_o)?);
    let scale = 1.0 / (d as f32).sqrt();
    let mut o = DeviceTensor::<T>::zeros(dev, [heads, s, d])?;
    let mut lse = DeviceTensor::<f32>::zeros(dev, [heads, s])?;
    forward(dev, &q_gpu, &k_gpu, &v_gpu, &mut o, &mut lse, scale, causal)?;
    let mut grads =
        [[heads, s, d], [kv_heads, s, d], [kv_heads, s, d]].map(|shape| DeviceTensor::<T>::zeros(dev, shape));
    for g in grads.iter_mut().flatten() {
        g.poison(T::from_f64(f64::NAN))?;
    }
    let [dq, dk, dv] = grads;
    let (mut dq, mut dk, mut dv) = (dq?, dk?, dv?);
    let step = |dq: &mut DeviceTensor<T>, dk: &mut DeviceTensor<T>, dv: &mut DeviceTensor<T>| {
        backward::launch(dev, &q_gpu, &k_gpu, &v_gpu, &o, &d_o_gpu, &lse, dq, dk, dv, scale, causal)
    };
    step(&mut dq, &mut dk, &mut dv)?;
    // The reference takes the GPU's O and lse as the forward's (the backward's inputs), so that
    // checking a row costs one pass over a head's keys or queries, not the whole forward.
    let problem = grad_reference::Problem::new([&q, &k, &v, &d_o], scale as f64, causal);
    let lse_host: Vec<f64> = lse.to_host()?.data().iter().map(|&x| x as f64).collect();
    let mut saved = grad_reference::Forward { o: Vec::new(), lse: lse_host, delta: vec![0.0; heads * s] };
    grad_reference::take_o(&problem, &mut saved, &o.to_host()?);
    let got = [dq.to_host()?, dk.to_host()?, dv.to_host()?];
    let errors = grad_reference::max_rel_err(&problem, &saved, [&got[0], &got[1], &got[2]], CHECKED_ROWS);
    row.rel_err = Some(errors.into_iter().fold(0.0, f64::max));
    let mut sets = [()];
    let timed = |_: &mut ()| Ok(step(&mut dq, &mut dk, &mut dv)?);
    row.ms = Some(timing::time_median(dev, config.runs, WARMUP, config.gap, &mut sets, timed)?);
    Ok(())
}

fn main() -> ExitCode {
    match run() {
        Ok(true) => ExitCode::SUCCESS,
        Ok(false) => ExitCode::FAILURE,
        Err(err) => {
            eprintln!("bench_attention: error: {err}");
            ExitCode::FAILURE
        }
    }
}

/// Benchmarks every case, then prints and writes the table. `Ok(false)`: a case failed.
fn run() -> Res<bool> {
    let config = Config::from_env()?;
    if !Device::is_available() {
        let why = Device::new(0).err().map_or_else(String::new, |e| e.to_string());
        println!("bench_attention: no Hopper GPU here ({why})");
        println!("bench_attention: nothing to measure; run it on the GPU machine (bench/README.md)");
        return Ok(true);
    }
    let dev = Device::new(0)?;
    println!(
        "bench_attention on {}: {WARMUP} warm-up + {} timed launches ({}), median",
        dev.name(),
        config.runs,
        config.gap.map_or_else(|| "back to back".to_string(), |g| format!("{} ms idle after each", g.as_millis()))
    );
    if config.passes.contains(&Pass::Backward) {
        // What the environment picks (an unknown value fails here): the dQ path at D = 64 and 128,
        // and the causal order by name (a section's heads depend on the case).
        let plan = |d| backward::plan(&[1, 2048, d], &[1, 2048, d], &[1, 2048], 0.125, true);
        let (d64, d128) = (plan(64)?.dq, plan(128)?.dq);
        let order = match plan(128)?.order {
            backward::CausalOrder::Heads => "heads",
            backward::CausalOrder::Sections(_) => "sections",
        };
        println!(
            "backward: dQ path {d64:?} at D 64, {d128:?} at D 128 (TESSEL_ATTN_BWD_DQ), causal order {order} \
             (TESSEL_ATTN_BWD_ORDER)"
        );
    }
    let mut rows = cases(&config);
    for row in &mut rows {
        let result = match (row.pass, row.dtype) {
            (Pass::Forward, "bf16") => bench::<bf16>(&dev, kernels::attention_bf16, row, &config),
            (Pass::Forward, _) => bench::<f16>(&dev, kernels::attention_f16, row, &config),
            (Pass::Backward, "bf16") => bench_backward::<bf16>(&dev, kernels::attention_train_bf16, row, &config),
            (Pass::Backward, _) => bench_backward::<f16>(&dev, kernels::attention_train_f16, row, &config),
        };
        let (dtype, heads, kv_heads, seq, d, causal) = (row.dtype, row.heads, row.kv_heads, row.seq, row.d, row.causal);
        if let Err(err) = result {
            let pass = row.pass.name();
            println!("{pass} {dtype} {heads}/{kv_heads}x{seq}x{d} (causal: {causal}): FAILED: {err}");
        }
    }
    report(&rows, &config)
}

/// Every case to measure, per pass: the multi-head ones (as many K/V heads as query heads), then
/// the GQA ones.
fn cases(config: &Config) -> Vec<Row> {
    config.passes.iter().flat_map(|&pass| pass_cases(config, pass)).collect()
}

fn pass_cases(config: &Config, pass: Pass) -> Vec<Row> {
    let row = |dtype, heads, kv_heads, seq, d, causal| Row {
        pass,
        dtype,
        heads,
        kv_heads,
        seq,
        d,
        causal,
        ms: None,
        rel_err: None,
    };
    let mut rows = Vec::new();
    for &causal in &config.causal {
        for &dtype in &config.dtypes {
            for &d in &config.dims {
                for &seq in &config.seqs {
                    let heads = TOKENS / seq * (WIDTH / d);
                    rows.push(row(dtype, heads, heads, seq, d, causal));
                }
            }
        }
    }
    for &causal in &config.causal {
        for &dtype in &config.dtypes {
            for &seq in config.seqs.iter().filter(|&&s| s >= 2048) {
                for &hk in &config.gqa {
                    rows.push(row(dtype, TOKENS / seq * GQA_HEADS, TOKENS / seq * hk, seq, GQA_D, causal));
                }
            }
        }
    }
    rows
}

/// Writes the CSV, prints the verdict, then the table, last. `Ok(false)` if a case failed.
fn report(rows: &[Row], config: &Config) -> Res<bool> {
    let dash = || "-".to_string();
    let header =
        ["pass", "dtype", "causal", "heads", "kv heads", "seq", "d", "ms", "TFLOP/s", "rel err"].map(String::from);
    let body = rows.iter().map(|r| {
        [
            r.pass.name().to_string(),
            r.dtype.to_string(),
            r.causal.to_string(),
            r.heads.to_string(),
            r.kv_heads.to_string(),
            r.seq.to_string(),
            r.d.to_string(),
            r.ms.map_or_else(dash, |ms| format!("{ms:.4}")),
            r.tflops().map_or_else(dash, |t| format!("{t:.1}")),
            r.rel_err.map_or_else(dash, |e| format!("{e:.2e}")),
        ]
    });
    let table: Vec<[String; 10]> = std::iter::once(header).chain(body).collect();
    let passed = rows.iter().all(Row::passed);
    table::report(&table, &config.out_dir, "bench_attention.csv", passed, TOLERANCE, 0);
    Ok(passed)
}
