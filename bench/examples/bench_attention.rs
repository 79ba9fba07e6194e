//! bench_attention: tessel's flash attention forward pass (`kernels/src/attention.rs`), timed
//! with CUDA events and checked against an f64 reference.
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
//! 4 x heads x S x T x D (query heads), halved for causal attention.
//! The grouped-query cases (GQA) are a Llama-style layer's: 32 query heads of D = 128 per sequence
//! sharing 8 or 4 K/V heads (`BENCH_GQA`), 16384 tokens in all, so `heads` = (16384 / S) x 32 query
//! heads over `kv heads` = (16384 / S) x HK, for S of 2048 and more.
//! Per case: inputs N(0,1) from fixed seeds; the output, written over NaN, is compared with an f64
//! reference on 64 rows spread over heads and queries (max error relative to each row's largest
//! value, at most 1e-2); 10 warm-up launches, then `BENCH_RUNS` (default 50) launches each between
//! two CUDA events, back to back; the median is reported. One set of Q, K and V (192 MiB in bf16)
//! exceeds the L2 many times over, so no launch finds its inputs left there by the one before.
//!
//! The baselines (cuDNN and FlashAttention-2 through PyTorch, Pallas's Mosaic GPU attention) are
//! measured by `bench/attention_baselines.py` on the same shapes, with the same columns.
//!
//! Environment: `BENCH_SEQS` (comma-separated, each dividing 16384; default
//! 1024,2048,4096,8192,16384), `BENCH_DIMS` (`64,128`), `BENCH_DTYPES` (`bf16,f16`), `BENCH_CAUSAL`
//! (`0,1`: without and with the mask), `BENCH_GQA` (K/V heads per 32 query heads of the GQA
//! cases, default `8,4`; `none` for none; they take the dtypes, masks and the lengths from 2048 on
//! of the lists above), `BENCH_RUNS`,
//! `BENCH_OUT` (the CSV's directory; default `bench/results`). The table is the last lines of the
//! output. Without a GPU the benchmark says so and exits 0; exit status 1 means a check or a run
//! failed.

use tessel_kernels::attention as kernels;
#[path = "../../kernels/examples/support/attention_ref.rs"]
#[allow(dead_code)] // the training forward's lse check is the tests'
mod reference;
#[path = "bench_support/timing.rs"]
mod timing;

use std::error::Error;
use std::path::PathBuf;
use std::process::ExitCode;

use kernels::Launch;
use tessel::{bf16, f16, Device, DeviceTensor, Element};

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
    runs: usize,
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
        let runs = match var("BENCH_RUNS") {
            Some(n) => n.trim().parse::<usize>().map_err(|e| format!("BENCH_RUNS=`{n}`: {e}"))?.max(1),
            None => 50,
        };
        let out_dir = var("BENCH_OUT").map_or_else(|| PathBuf::from("bench/results"), PathBuf::from);
        Ok(Config { seqs, dims, dtypes, causal, gqa, runs, out_dir })
    }
}

fn dtype(name: &str) -> Res<&'static str> {
    match name {
        "bf16" => Ok("bf16"),
        "f16" => Ok("f16"),
        other => Err(format!("BENCH_DTYPES: `{other}` is not bf16 or f16").into()),
    }
}

/// One measured case; `None` where it failed.
struct Row {
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
        let flops = 4.0 * (self.heads * self.seq * self.seq * self.d) as f64 / if self.causal { 2.0 } else { 1.0 };
        self.ms.map(|ms| flops / ms / 1e9)
    }

    fn passed(&self) -> bool {
        self.ms.is_some() && self.rel_err.is_some_and(|e| e <= TOLERANCE)
    }
}

/// Checks and times one case.
fn bench<T: Element>(dev: &Device, launch: Launch<T>, row: &mut Row, runs: usize) -> Res<()> {
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
    row.ms = Some(timing::time_median(dev, runs, WARMUP, &mut sets, |_| {
        Ok(launch(dev, &q, &k, &v, &mut o, scale, causal)?)
    })?);
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
        "bench_attention on {}: {WARMUP} warm-up + {} timed launches (back to back), median",
        dev.name(),
        config.runs
    );
    let mut rows = cases(&config);
    for row in &mut rows {
        let result = match row.dtype {
            "bf16" => bench::<bf16>(&dev, kernels::attention_bf16, row, config.runs),
            _ => bench::<f16>(&dev, kernels::attention_f16, row, config.runs),
        };
        let (dtype, heads, kv_heads, seq, d, causal) = (row.dtype, row.heads, row.kv_heads, row.seq, row.d, row.causal);
        if let Err(err) = result {
            println!("{dtype} {heads}/{kv_heads}x{seq}x{d} (causal: {causal}): FAILED: {err}");
        }
    }
    report(&rows, &config)
}

/// Every case to measure: the multi-head ones (as many K/V heads as query heads), then the GQA ones.
fn cases(config: &Config) -> Vec<Row> {
    let row = |dtype, heads, kv_heads, seq, d, causal| Row {
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

/// Prints the verdict, writes the CSV and prints the table, last. `Ok(false)` if a case failed.
fn report(rows: &[Row], config: &Config) -> Res<bool> {
    let dash = || "-".to_string();
    let header = ["dtype", "causal", "heads", "kv heads", "seq", "d", "ms", "TFLOP/s", "rel err"].map(String::from);
    let body = rows.iter().map(|r| {
        [
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
    let table: Vec<[String; 9]> = std::iter::once(header).chain(body).collect();
    let csv: String = table.iter().map(|cells| cells.join(",") + "\n").collect();
    let path = config.out_dir.join("bench_attention.csv");
    match std::fs::create_dir_all(&config.out_dir).and_then(|()| std::fs::write(&path, csv)) {
        Ok(()) => println!("wrote {}", path.display()),
        Err(err) => println!("could not write {}: {err}", path.display()),
    }
    let passed = rows.iter().all(Row::passed);
    match passed {
        true => println!("all results within {TOLERANCE:.0e} of the reference"),
        false => println!("FAILED: a run failed or a result is off by more than {TOLERANCE:.0e} (lines above)"),
    }
    println!();
    for cells in &table {
        let padded: Vec<String> =
            cells.iter().zip([5, 6, 5, 8, 6, 4, 8, 8, 9]).map(|(c, w)| format!("{c:>w$}")).collect();
        println!("{}", padded.join("  "));
    }
    Ok(passed)
}
