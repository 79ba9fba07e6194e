//! `bench_collective`'s cases, contenders, timing of a group of GPUs and report (its module
//! documentation has the protocol).

use std::fmt::Write as _;
use std::path::PathBuf;

use cudarc::cublas::{CudaBlas, Gemm};
use cudarc::driver::sys::CUevent_flags;
use cudarc::driver::{CudaContext, CudaEvent};
use tessel::{bf16, Collectives, DeviceGroup, DeviceTensor, HostTensor, ReduceOp};
use tessel_kernels::collective::{self as kernels, AllGatherBuffers, ReduceScatterBuffers, WORLDS};

use crate::cublas::{guarded, preload};
use crate::harness::{rel_err, TOLERANCE};
use crate::timing::{median, Gate};
use crate::{layer, Res};

const WARMUP: usize = 3;
const DEFAULT_RUNS: usize = 20;
const DEFAULT_TOKENS: [usize; 3] = [4096, 8192, 16384];
const DEFAULT_LAYERS: [&str; 4] = ["qkv", "gate_up", "o_proj", "down"];
/// N(0,1) samples that every input takes a window of (16 Mi values, 32 MiB).
const POOL: usize = 1 << 24;

/// Which fused GEMM.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Kind {
    /// C = all_gather(A) @ B.
    AllGather,
    /// Rank r's rows of sum_q A_q @ B_q.
    ReduceScatter,
}

/// One shape: M rows in all, N and K per rank (A M/W x K and B K x N for the all-gather; A M x K
/// and B K x N for the reduce-scatter).
#[derive(Clone, Copy, Debug)]
pub struct Case {
    pub name: &'static str,
    pub kind: Kind,
    pub m: usize,
    pub n: usize,
    pub k: usize,
}

impl Case {
    /// Each GPU's 2 M N K.
    fn flops(self) -> f64 {
        2.0 * (self.m * self.n * self.k) as f64
    }
}

/// What the environment asks for (the benchmark's module documentation).
pub struct Config {
    pub world: usize,
    pub cases: Vec<Case>,
    runs: usize,
    out_dir: PathBuf,
}

impl Config {
    pub fn from_env() -> Res<Config> {
        let var = |name| std::env::var(name).ok().filter(|v: &String| !v.trim().is_empty());
        let found = usize::try_from(CudaContext::device_count()?)?;
        let world = match var("BENCH_WORLD") {
            Some(w) => w.trim().parse::<usize>().map_err(|e| format!("BENCH_WORLD=`{w}`: {e}"))?,
            None => WORLDS.into_iter().rfind(|&w| w <= found).unwrap_or(1),
        };
        if !WORLDS.contains(&world) || world > found {
            return Err(
                format!("BENCH_WORLD={world}: the kernels run on 1, 2, 4 or 8 GPUs, and {found} are here").into()
            );
        }
        let cases = match var("BENCH_SHAPES") {
            Some(list) => list.split(',').map(|text| parse_shape(text, world)).collect::<Res<Vec<_>>>()?,
            None => layer_cases(world, var("BENCH_LAYERS"), var("BENCH_TOKENS"))?,
        };
        let runs = match var("BENCH_RUNS") {
            Some(n) => n.trim().parse::<usize>().map_err(|e| format!("BENCH_RUNS=`{n}`: {e}"))?.max(3),
            None => DEFAULT_RUNS,
        };
        let out_dir = var("BENCH_OUT").map_or_else(|| PathBuf::from("bench/results"), PathBuf::from);
        Ok(Config { world, cases, runs, out_dir })
    }
}

/// Every layer of `layers` (or all) at every M of `tokens` (or the defaults).
fn layer_cases(world: usize, layers: Option<String>, tokens: Option<String>) -> Res<Vec<Case>> {
    let tokens: Vec<usize> = match tokens {
        Some(list) => list.split(',').map(|t| t.trim().parse::<usize>()).collect::<Result<_, _>>()?,
        None => DEFAULT_TOKENS.to_vec(),
    };
    let names: Vec<String> = match layers {
        Some(list) => list.split(',').map(|l| l.trim().to_string()).collect(),
        None => DEFAULT_LAYERS.iter().map(|l| l.to_string()).collect(),
    };
    let mut cases = Vec::new();
    for name in &names {
        let name = DEFAULT_LAYERS.into_iter().find(|l| l == name).ok_or(format!("BENCH_LAYERS: no layer `{name}`"))?;
        for &m in &tokens {
            let (kind, n, k) = layer(name, world).ok_or("a layer without a shape")?;
            cases.push(checked(Case { name, kind, m, n, k }, world)?);
        }
    }
    Ok(cases)
}

/// `ag:MxNxK` or `rs:MxNxK`.
fn parse_shape(text: &str, world: usize) -> Res<Case> {
    let (kind, dims) = match text.trim().split_once(':') {
        Some(("ag", dims)) => (Kind::AllGather, dims),
        Some(("rs", dims)) => (Kind::ReduceScatter, dims),
        _ => return Err(format!("BENCH_SHAPES: `{text}` is not ag:MxNxK or rs:MxNxK").into()),
    };
    let dims: Vec<usize> = dims.split('x').map(str::parse).collect::<Result<_, _>>()?;
    let [m, n, k] = dims[..] else { return Err(format!("BENCH_SHAPES: `{text}` is not ag:MxNxK or rs:MxNxK").into()) };
    checked(Case { name: "shape", kind, m, n, k }, world)
}

/// The kernels' rules, before any input is made: M / W rows a multiple of 128, N and K multiples
/// of 8 (TMA's 16-byte rows).
fn checked(case: Case, world: usize) -> Res<Case> {
    let multiple = |x: usize, of: usize| x > 0 && x.is_multiple_of(of);
    if !(multiple(case.m, 128 * world) && multiple(case.n, 8) && multiple(case.k, 8)) {
        return Err(format!("{case}: M must be a positive multiple of 128 x {world} GPUs, N and K of 8").into());
    }
    Ok(case)
}

/// The GPUs, NCCL's communicators and a cuBLAS handle per rank (or why each is missing).
pub struct Contenders {
    group: DeviceGroup,
    nccl: Result<Collectives, String>,
    blas: Result<Vec<CudaBlas>, String>,
}

impl Contenders {
    /// Opens the first `world` GPUs and the libraries; prints what happened.
    pub fn open(world: usize) -> Res<Contenders> {
        let group = DeviceGroup::first(world)?;
        let nccl = Collectives::new(&group).map_err(|e| e.to_string());
        let blas = preload().and_then(|()| {
            let handles = group.devices().iter().map(|d| Ok(CudaBlas::new(d.stream().clone())?));
            guarded(|| handles.collect::<Res<Vec<_>>>())
        });
        let names: Vec<&str> = group.devices().iter().map(|d| d.name()).collect();
        println!("bench_collective on {world} GPU(s): {}", names.join(", "));
        for (name, why) in [("NCCL", nccl.as_ref().err()), ("cuBLAS", blas.as_ref().err())] {
            match why {
                None => println!("{name}: loaded"),
                Some(why) => println!("{name}: NOT AVAILABLE, tessel is measured alone: {why}"),
            }
        }
        if world == 1 {
            println!("one GPU: a smoke test of the kernels' code (no communication; NCCL's all-gather is a copy)");
        }
        Ok(Contenders { group, nccl, blas })
    }

    /// Checks and times one case.
    pub fn bench(&self, case: Case, config: &Config) -> Res<Row> {
        let mut ops = Operands::new(&self.group, case)?;
        let baseline = match (&self.nccl, &self.blas) {
            (Ok(nccl), Ok(blas)) => Some((nccl, blas.as_slice())),
            _ => None,
        };
        let (rel, gathered_equal) = ops.check(&self.group, baseline)?;
        let tessel =
            timed(&self.group, config.runs, &mut [&mut |ops: &mut Operands| ops.tessel(&self.group)], &mut ops)?;
        let baseline = match baseline {
            Some((nccl, blas)) => {
                let (mut comm, mut gemm) = ops.baseline_parts(nccl, blas);
                Some(timed(&self.group, config.runs, &mut [&mut comm, &mut gemm], &mut ops)?)
            }
            None => None,
        };
        let row = Row { case, world: self.group.len(), tessel: Some(tessel), baseline, rel, gathered_equal };
        println!("{}", row.line());
        Ok(row)
    }
}

/// One case's tensors: the inputs, tessel's outputs and buffers, and the baseline's outputs.
struct Operands {
    case: Case,
    a: Vec<DeviceTensor<bf16>>,
    b: Vec<DeviceTensor<bf16>>,
    /// tessel's result: C (all-gather) or each rank's rows of the sum (reduce-scatter).
    out: Vec<DeviceTensor<bf16>>,
    buffers: Buffers,
    /// The baseline's: the gathered A (all-gather) or each rank's full product (reduce-scatter).
    between: Vec<DeviceTensor<bf16>>,
    /// The baseline's result, as `out`.
    reference: Vec<DeviceTensor<bf16>>,
}

enum Buffers {
    AllGather(AllGatherBuffers),
    ReduceScatter(ReduceScatterBuffers),
}

impl Operands {
    fn new(group: &DeviceGroup, case: Case) -> Res<Operands> {
        let (w, Case { m, n, k, .. }) = (group.len(), case);
        let pool = crate::random::randn(POOL, 30, bf16::from_f64);
        let mut seed = 0;
        let mut inputs = |shape: [usize; 2]| -> Res<Vec<DeviceTensor<bf16>>> {
            (0..w)
                .map(|r| {
                    seed += 1;
                    Ok(DeviceTensor::from_host(group.device(r), &window(&pool, shape, seed * 7_919_999)?)?)
                })
                .collect()
        };
        let zeros = |shape: [usize; 2]| -> Res<Vec<DeviceTensor<bf16>>> {
            group.devices().iter().map(|d| Ok(DeviceTensor::zeros(d, shape)?)).collect()
        };
        Ok(match case.kind {
            Kind::AllGather => Operands {
                case,
                a: inputs([m / w, k])?,
                b: inputs([k, n])?,
                out: zeros([m, n])?,
                buffers: Buffers::AllGather(AllGatherBuffers::new(group, m, k)?),
                between: zeros([m, k])?,
                reference: zeros([m, n])?,
            },
            Kind::ReduceScatter => Operands {
                case,
                a: inputs([m, k])?,
                b: inputs([k, n])?,
                out: zeros([m / w, n])?,
                buffers: Buffers::ReduceScatter(ReduceScatterBuffers::new(group, m, n)?),
                between: zeros([m, n])?,
                reference: zeros([m / w, n])?,
            },
        })
    }

    /// tessel's fused kernel on every rank.
    fn tessel(&mut self, group: &DeviceGroup) -> Res<()> {
        match &mut self.buffers {
            Buffers::AllGather(buf) => kernels::all_gather_matmul_bf16(group, &self.a, &self.b, &mut self.out, buf)?,
            Buffers::ReduceScatter(buf) => {
                kernels::matmul_reduce_scatter_bf16(group, &self.a, &self.b, &mut self.out, buf)?
            }
        }
        Ok(())
    }

    /// The baseline's two parts, in order: NCCL then cuBLAS (all-gather), or cuBLAS then NCCL.
    fn baseline_parts<'a>(&self, nccl: &'a Collectives, blas: &'a [CudaBlas]) -> (Part<'a>, Part<'a>) {
        let case = self.case;
        let collective: Part<'a> = Box::new(move |ops: &mut Operands| match case.kind {
            Kind::AllGather => Ok(nccl.all_gather(&ops.a, &mut ops.between)?),
            Kind::ReduceScatter => Ok(nccl.reduce_scatter(&ops.between, &mut ops.reference, ReduceOp::Sum)?),
        });
        let gemms: Part<'a> = Box::new(move |ops: &mut Operands| {
            for (r, blas) in blas.iter().enumerate() {
                match case.kind {
                    Kind::AllGather => gemm(blas, &ops.between[r], &ops.b[r], &mut ops.reference[r])?,
                    Kind::ReduceScatter => gemm(blas, &ops.a[r], &ops.b[r], &mut ops.between[r])?,
                }
            }
            Ok(())
        });
        match case.kind {
            Kind::AllGather => (collective, gemms),
            Kind::ReduceScatter => (gemms, collective),
        }
    }

    /// Both contenders once on poisoned outputs: the largest relative error over the ranks, and
    /// (all-gather) whether every rank's gathered A equals NCCL's. Without a baseline, the error
    /// of tessel's first rank's sampled rows against an f64 product on the host.
    fn check(
        &mut self,
        group: &DeviceGroup,
        baseline: Option<(&Collectives, &[CudaBlas])>,
    ) -> Res<(f64, Option<bool>)> {
        for t in self.out.iter_mut().chain(&mut self.reference) {
            t.poison(bf16::NAN)?;
        }
        self.tessel(group)?;
        let Some((nccl, blas)) = baseline else { return Ok((self.host_check(group)?, None)) };
        let (mut first, mut second) = self.baseline_parts(nccl, blas);
        first(self)?;
        second(self)?;
        group.synchronize()?;
        let mut worst = 0.0f64;
        for (ours, theirs) in self.out.iter().zip(&self.reference) {
            worst = worst.max(rel_err(ours.to_host()?.data(), theirs.to_host()?.data()));
        }
        let gathered_equal = match &self.buffers {
            Buffers::AllGather(buf) => {
                let ours = buf.gathered().to_host()?;
                let same = ours.iter().zip(&self.between).map(|(o, t)| Ok(o.data() == t.to_host()?.data()));
                Some(same.collect::<Res<Vec<bool>>>()?.into_iter().all(|x| x))
            }
            Buffers::ReduceScatter(_) => None,
        };
        Ok((worst, gathered_equal))
    }

    /// Rank 0's first 8 rows of tessel's result against f64 products on the host.
    fn host_check(&self, group: &DeviceGroup) -> Res<f64> {
        group.synchronize()?;
        let Case { kind, n, k, .. } = self.case;
        let ours = self.out[0].to_host()?;
        let b: Vec<Vec<f64>> = self.b.iter().map(|t| Ok(values(&t.to_host()?))).collect::<Res<_>>()?;
        let a: Vec<Vec<f64>> = self.a.iter().map(|t| Ok(values(&t.to_host()?))).collect::<Res<_>>()?;
        let rows = 8.min(ours.shape()[0]);
        let mut want = vec![0.0; rows * n];
        for (i, row) in want.chunks_mut(n).enumerate() {
            // All-gather: row i of C is row i of rank 0's A; reduce-scatter: row i of rank 0's
            // rows of the sum, over every rank's A and B.
            let terms: Vec<(&Vec<f64>, &Vec<f64>)> = match kind {
                Kind::AllGather => vec![(&a[0], &b[0])],
                Kind::ReduceScatter => a.iter().zip(&b).collect(),
            };
            for (aq, bq) in terms {
                for p in 0..k {
                    let x = aq[i * k + p];
                    for (j, y) in row.iter_mut().enumerate() {
                        *y += x * bq[p * n + j];
                    }
                }
            }
        }
        let got: Vec<bf16> = ours.data()[..rows * n].to_vec();
        let want: Vec<bf16> = want.iter().map(|&v| bf16::from_f64(v)).collect();
        Ok(rel_err(&got, &want))
    }
}

fn values(t: &HostTensor<bf16>) -> Vec<f64> {
    t.data().iter().map(|v| v.to_f64()).collect()
}

/// A tensor of `shape` holding the pool's values from `offset` on, around the pool.
fn window(pool: &[bf16], shape: [usize; 2], offset: usize) -> Res<HostTensor<bf16>> {
    let len = shape[0] * shape[1];
    let data = (0..len).map(|i| pool[(offset + i) % pool.len()]).collect();
    Ok(HostTensor::new(shape, data)?)
}

/// Row-major C = A @ B (A M x K, B K x N) as column-major C^T = B^T A^T (bench_matmul's `gemm`).
fn gemm(blas: &CudaBlas, a: &DeviceTensor<bf16>, b: &DeviceTensor<bf16>, c: &mut DeviceTensor<bf16>) -> Res<()> {
    let (m, k, n) = (a.shape()[0], a.shape()[1], b.shape()[1]);
    let cfg = crate::cublas::row_major_gemm::<bf16>(m, n, k)?;
    // Safety: B is K x N row-major (N x K column-major, ld N), A is M x K (K x M, ld K) and C is
    // M x N (N x M, ld N), all on the handle's device: each buffer holds the matrix `cfg` describes.
    unsafe { Ok(blas.gemm(cfg, b.as_slice(), a.as_slice(), &mut c.as_cuda_view_mut())?) }
}

/// One part of a contender: queues its launches on every rank.
type Queue<'a> = dyn FnMut(&mut Operands) -> Res<()> + 'a;
type Part<'a> = Box<Queue<'a>>;

/// A contender's times over the rounds: the whole, and each part's (ms).
pub struct Times {
    whole: Vec<f64>,
    parts: Vec<Vec<f64>>,
}

/// `WARMUP` then `runs` rounds of `parts` in order (one contender), each round on synchronized
/// ranks whose streams are held until all is queued, an event on every rank before, between and
/// after the parts. A round's time (of the whole, and of each part) is the slowest rank's.
fn timed(group: &DeviceGroup, runs: usize, parts: &mut [&mut Queue], ops: &mut Operands) -> Res<Times> {
    let mut times = Times { whole: Vec::new(), parts: vec![Vec::new(); parts.len()] };
    for round in 0..WARMUP + runs {
        group.synchronize()?;
        let gates = group.devices().iter().map(|d| Gate::hold(d.stream())).collect::<Res<Vec<_>>>()?;
        let mut stamps = vec![events(group)?];
        for part in parts.iter_mut() {
            part(ops)?;
            stamps.push(events(group)?);
        }
        drop(gates);
        group.synchronize()?;
        if round < WARMUP {
            continue;
        }
        let slowest = |from: &[CudaEvent], to: &[CudaEvent]| -> Res<f64> {
            let each = from.iter().zip(to).map(|(s, e)| Ok(f64::from(s.elapsed_ms(e)?)));
            Ok(each.collect::<Res<Vec<f64>>>()?.into_iter().fold(0.0, f64::max))
        };
        times.whole.push(slowest(&stamps[0], &stamps[parts.len()])?);
        for (p, part) in times.parts.iter_mut().enumerate() {
            part.push(slowest(&stamps[p], &stamps[p + 1])?);
        }
    }
    Ok(times)
}

/// An event recorded on every rank's stream now.
fn events(group: &DeviceGroup) -> Res<Vec<CudaEvent>> {
    group
        .devices()
        .iter()
        .map(|d| {
            let event = d.context().new_event(Some(CUevent_flags::CU_EVENT_DEFAULT))?;
            event.record(d.stream())?;
            Ok(event)
        })
        .collect()
}

/// Median and range of a series (ms).
#[derive(Clone, Copy)]
struct Stats {
    median: f64,
    min: f64,
    max: f64,
}

impl Stats {
    fn of(times: &[f64]) -> Stats {
        let mut sorted = times.to_vec();
        let median = median(&mut sorted);
        Stats { median, min: sorted[0], max: sorted[sorted.len() - 1] }
    }

    fn text(self) -> String {
        format!("{:.3} ({:.3}-{:.3})", self.median, self.min, self.max)
    }
}

/// One line of the table; `None` where that part failed or is missing.
pub struct Row {
    case: Case,
    world: usize,
    tessel: Option<Times>,
    baseline: Option<Times>,
    rel: f64,
    gathered_equal: Option<bool>,
}

impl Row {
    pub fn failed(case: Case, world: usize) -> Row {
        Row { case, world, tessel: None, baseline: None, rel: f64::INFINITY, gathered_equal: None }
    }

    fn passed(&self) -> bool {
        self.tessel.is_some() && self.rel <= TOLERANCE && self.gathered_equal != Some(false)
    }

    /// The table's cells.
    fn cells(&self) -> [String; 10] {
        let dash = || "-".to_string();
        let tessel = self.tessel.as_ref().map(|t| Stats::of(&t.whole));
        let base = self.baseline.as_ref().map(|t| Stats::of(&t.whole));
        let rate =
            |s: Option<Stats>| s.map_or_else(dash, |s| format!("{:.1}", self.case.flops() / (s.median * 1e-3) / 1e12));
        let ratio = tessel.zip(base).map_or_else(dash, |(t, b)| format!("{:.3}", b.median / t.median));
        let ideal = self.baseline.as_ref().map_or_else(dash, |b| {
            let (x, y) = (Stats::of(&b.parts[0]).median, Stats::of(&b.parts[1]).median);
            format!("{:.3}", (x + y) / x.max(y))
        });
        let checked = match self.gathered_equal {
            Some(false) => format!("{:.2e} (gathered A differs)", self.rel),
            _ => format!("{:.2e}", self.rel),
        };
        [
            format!("{} {:?}", self.case.name, self.case.kind),
            format!("{}x{}x{}", self.case.m, self.case.n, self.case.k),
            self.world.to_string(),
            tessel.map_or_else(dash, Stats::text),
            base.map_or_else(dash, Stats::text),
            rate(tessel),
            rate(base),
            ratio,
            ideal,
            checked,
        ]
    }

    /// The progress line: the table's cells, with the baseline's parts.
    fn line(&self) -> String {
        let c = self.cells();
        let mut line = format!(
            "{} {} on {} GPU(s): tessel {} ms, {} TFLOP/s/GPU | NCCL+cuBLAS {} ms, {} TFLOP/s/GPU",
            c[0], c[1], c[2], c[3], c[5], c[4], c[6]
        );
        if let Some(b) = &self.baseline {
            let (x, y) = (Stats::of(&b.parts[0]), Stats::of(&b.parts[1]));
            let _ = write!(line, " (parts {} + {} ms)", x.text(), y.text());
        }
        let _ = write!(line, " | ratio {} ideal {} | rel err {}", c[7], c[8], c[9]);
        line
    }
}

const HEADER: [&str; 10] = [
    "layer",
    "M x N x K",
    "W",
    "tessel ms",
    "NCCL+cuBLAS ms",
    "tessel TFLOP/s/GPU",
    "baseline TFLOP/s/GPU",
    "ratio",
    "ideal",
    "rel err",
];

/// Writes the CSV, prints the verdict, then the table, last. `false` if a row failed.
pub fn report(rows: &[Row], config: &Config) -> bool {
    let table: Vec<[String; 10]> =
        std::iter::once(HEADER.map(String::from)).chain(rows.iter().map(Row::cells)).collect();
    let passed = rows.iter().all(Row::passed);
    crate::table::report(&table, &config.out_dir, "bench_collective.csv", passed, TOLERANCE, 0);
    passed
}
