//! bench_collective: tessel's fused tensor-parallel GEMMs (`kernels/src/collective.rs`) against
//! NCCL and cuBLAS in sequence, on every GPU of the machine, on the same operands.
//!
//! ```text
//! cargo build --release -p tessel-bench --example bench_collective
//! # then, on a machine with several GPUs (bench/README.md):
//! BENCH_OUT=/tmp target/release/examples/bench_collective
//! ```
//!
//! The layers are those of a tensor-parallel Llama-3-70B-like model (hidden 8192, FFN 28672, 64
//! query and 8 KV heads of 128) on W GPUs, M tokens in all, each shape per GPU:
//! - `qkv`: all-gather + GEMM, A M/W x 8192 per rank, B 8192 x 10240/W;
//! - `gate_up`: all-gather + GEMM, gate and up fused: B 8192 x 2 * 28672/W;
//! - `o_proj`: GEMM + reduce-scatter, A M x 8192/W, B 8192/W x 8192;
//! - `down`: GEMM + reduce-scatter, A M x 28672/W, B 28672/W x 8192.
//!
//! The contenders, on the same inputs:
//! - tessel: `all_gather_matmul_bf16` (C = all_gather(A) @ B in one kernel, which also leaves
//!   all_gather(A) in its buffer) or `matmul_reduce_scatter_bf16`, on every rank;
//! - NCCL + cuBLAS in sequence: `ncclAllGather` then `cublasGemmEx` (f32 compute) on every rank,
//!   or `cublasGemmEx` then `ncclReduceScatter` (bf16 sum), through tessel's `Collectives`.
//!
//! The protocol (docs/performance.md, "Several GPUs"): inputs N(0,1) (windows of one pool of
//! samples, a different one per tensor); both contenders run once on NaN-poisoned outputs and
//! every rank's results are compared (`max|tessel - baseline| / max|baseline|` at most 1e-2; the
//! all-gather's gathered A must be equal); then `BENCH_RUNS` (default 20, at least 3) timed rounds
//! after 3 warm-up rounds, the contenders interleaved within each round. A contender's time in a
//! round: every rank is synchronized, every rank's stream is held (so that all ranks start
//! together once everything is queued), a CUDA event pair on every rank around its launches; the
//! time is the slowest rank's. Reported: the median over rounds and the range; the baseline's NCCL
//! and cuBLAS parts are timed by an event between them, and `ideal` is what a perfect overlap of
//! the two would gain at best, `(nccl + cublas) / max(nccl, cublas)`, with their medians. TFLOP/s
//! count each GPU's 2 M N K (per-rank N or K).
//!
//! Environment: `BENCH_WORLD` (GPUs to use: 1, 2, 4 or 8; default all of them, rounded down to
//! one of those), `BENCH_TOKENS` (comma-separated M, default `4096,8192,16384`), `BENCH_LAYERS`
//! (default `qkv,gate_up,o_proj,down`), `BENCH_SHAPES` (instead of the layers: `ag:MxNxK` and
//! `rs:MxNxK`, comma-separated, N and K per rank as above), `BENCH_RUNS`, `BENCH_OUT` (the CSV's
//! directory; default `bench/results`). On one GPU it runs W = 1 as a smoke test (the kernels'
//! code without communication; NCCL's all-gather is then a copy). Without a GPU it says so and
//! exits 0; exit status 1 means a check or a run failed. The table is the last lines of the output.

#[path = "bench_support/collective.rs"]
mod collective;
#[path = "bench_support/cublas.rs"]
#[allow(dead_code)] // cuBLASLt is bench_matmul's
mod cublas;
#[path = "bench_support/harness.rs"]
#[allow(dead_code)] // the GEMM benchmarks' shapes, rotation and report
mod harness;
#[path = "bench_support/random.rs"]
mod random;
#[path = "bench_support/table.rs"]
mod table;
#[path = "bench_support/timing.rs"]
#[allow(dead_code)]
mod timing;

use std::error::Error;
use std::process::ExitCode;

use collective::{Case, Config, Contenders, Kind, Row};
use tessel::Device;

/// Errors of the benchmark itself: tessel's, cudarc's, or our own messages.
pub type Res<T> = std::result::Result<T, Box<dyn Error>>;

fn main() -> ExitCode {
    harness::exit_code("bench_collective", run())
}

/// Benchmarks every case, then prints and writes the table. `Ok(false)`: a row failed.
fn run() -> Res<bool> {
    if !Device::is_available() {
        let why = Device::new(0).err().map_or_else(String::new, |e| e.to_string());
        println!("bench_collective: no Hopper GPU here ({why})");
        println!("bench_collective: nothing to measure; run it on the GPU machine (bench/README.md)");
        return Ok(true);
    }
    let config = Config::from_env()?;
    let contenders = Contenders::open(config.world)?;
    let rows: Vec<Row> = config
        .cases
        .iter()
        .map(|&case| {
            contenders.bench(case, &config).unwrap_or_else(|err| {
                println!("{case}: FAILED: {err}");
                Row::failed(case, config.world)
            })
        })
        .collect();
    Ok(collective::report(&rows, &config))
}

/// The layers, by name: kind, N and K per rank on `w` GPUs.
pub fn layer(name: &str, w: usize) -> Option<(Kind, usize, usize)> {
    match name.trim() {
        "qkv" => Some((Kind::AllGather, 10240 / w, 8192)),
        "gate_up" => Some((Kind::AllGather, 2 * 28672 / w, 8192)),
        "o_proj" => Some((Kind::ReduceScatter, 8192, 8192 / w)),
        "down" => Some((Kind::ReduceScatter, 8192, 28672 / w)),
        _ => None,
    }
}

impl std::fmt::Display for Case {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let op = match self.kind {
            Kind::AllGather => "ag",
            Kind::ReduceScatter => "rs",
        };
        write!(f, "{} {op}:{}x{}x{}", self.name, self.m, self.n, self.k)
    }
}
