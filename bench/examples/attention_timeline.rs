//! attention_timeline: where the attention forward's time goes around its units, from the probe
//! instances (`tessel_kernels::attention::attention_probe_bf16`), which store the GPU's global
//! timer at each event of each unit of each warpgroup.
//!
//! ```text
//! cargo build --release -p tessel-bench --example attention_timeline
//! # then, on the GPU machine (bench/README.md):
//! BENCH_SEQS=1024,4096 BENCH_CAUSAL=0 target/release/examples/attention_timeline
//! ```
//!
//! bf16, D = 128, `bench_attention`'s shapes (16384 tokens, heads = 16384 / S x 16). Per case:
//! the plain kernel and the probe kernel timed alternately (`BENCH_RUNS` launches each, default
//! 20, after 10 warm-up rounds; medians), then one more probe launch, whose readings (each
//! reading the median of its warpgroup's 128 threads) give the mean over every unit of:
//! - the consumers' phases: waiting for the unit's Q, then for its first K and V, the first
//!   scores, the rest of the loop (to the last P V), the O store, and the gap to the next unit;
//! - the producer's: waiting for the Q buffer to be free, and issuing the unit's K and V;
//! - the Q's flight: a consumer's "Q arrived" after the producer's "Q issued".
//!
//! Means in microseconds. The timer ticks in steps that may be as coarse as a microsecond, which
//! averages out over thousands of units, and the readings cost the kernel some time of their own
//! (the two kernel times say how much).
//!
//! Environment: `BENCH_SEQS` (comma-separated, each dividing 16384; default 1024,4096),
//! `BENCH_CAUSAL` (`0,1`), `BENCH_RUNS`.

#[path = "../../kernels/examples/support/attention_ref.rs"]
#[allow(dead_code)]
mod reference;
#[path = "bench_support/timing.rs"]
mod timing;

use std::error::Error;
use std::process::ExitCode;

use tessel::{bf16, Device, DeviceTensor, HostTensor};
use tessel_kernels::attention::{self as kernels, PROBE_EVENTS};

type Res<T> = Result<T, Box<dyn Error>>;

const TOKENS: usize = 16384;
const D: usize = 128;
const HEADS_PER_SEQUENCE: usize = 16;
const WARMUP: usize = 10;

fn main() -> ExitCode {
    match run() {
        Ok(()) => ExitCode::SUCCESS,
        Err(err) => {
            eprintln!("attention_timeline: error: {err}");
            ExitCode::FAILURE
        }
    }
}

fn run() -> Res<()> {
    let var = |name: &str| std::env::var(name).ok().filter(|v| !v.trim().is_empty());
    let numbers = |name: &str, default: &[usize]| -> Res<Vec<usize>> {
        match var(name) {
            None => Ok(default.to_vec()),
            Some(v) => v
                .split(',')
                .map(|x| x.trim().parse::<usize>().map_err(|e| format!("{name}=`{v}`: {e}").into()))
                .collect(),
        }
    };
    let seqs = numbers("BENCH_SEQS", &[1024, 4096])?;
    if let Some(s) = seqs.iter().find(|&&s| s == 0 || !TOKENS.is_multiple_of(s)) {
        return Err(format!("BENCH_SEQS: {s} does not divide {TOKENS}").into());
    }
    let causal = numbers("BENCH_CAUSAL", &[0, 1])?;
    let runs = numbers("BENCH_RUNS", &[20])?.first().copied().unwrap_or(20).max(1);
    if !Device::is_available() {
        println!("attention_timeline: no Hopper GPU here; run it on the GPU machine (bench/README.md)");
        return Ok(());
    }
    let dev = Device::new(0)?;
    println!("attention_timeline on {}: bf16, D = {D}, {runs} timed launches each, back to back", dev.name());
    let header =
        "   S  causal  heads  units   plain ms  probe ms | Q wait  K/V wait  first S    loop  O store  to next | \
                  Q buffer  K/V issue | Q flight  (us, means over units)";
    println!("{header}");
    for &s in &seqs {
        for &c in &causal {
            println!("{}", case(&dev, s, c == 1, runs)?);
        }
    }
    Ok(())
}

/// Times and probes one case; its row of the table.
fn case(dev: &Device, s: usize, causal: bool, runs: usize) -> Res<String> {
    let heads = TOKENS / s * HEADS_PER_SEQUENCE;
    let qkv = reference::inputs_gqa::<bf16>(heads, heads, s, s, D)?;
    let [q, k, v] = qkv.each_ref().map(|x| DeviceTensor::from_host(dev, x));
    let (q, k, v) = (q?, k?, v?);
    // One O each, so that the two kernels can be queued side by side.
    let (mut o, mut o_probed) = (DeviceTensor::zeros(dev, [heads, s, D])?, DeviceTensor::zeros(dev, [heads, s, D])?);
    let mut probe = DeviceTensor::<i64>::zeros(dev, kernels::probe_shape(heads, s))?;
    let scale = 1.0 / (D as f32).sqrt();
    let mut sets = [()];
    let mut ops: [timing::Op<()>; 2] = [
        Box::new(|_| Ok(kernels::attention_bf16(dev, &q, &k, &v, &mut o, scale, causal)?)),
        Box::new(|_| Ok(kernels::attention_probe_bf16(dev, &q, &k, &v, &mut o_probed, &mut probe, scale, causal)?)),
    ];
    let ms = timing::time_interleaved(dev, runs, WARMUP, &mut sets, &mut ops, None)?;
    drop(ops);
    probe.poison(-1)?;
    kernels::attention_probe_bf16(dev, &q, &k, &v, &mut o_probed, &mut probe, scale, causal)?;
    if o.to_host()?.data() != o_probed.to_host()?.data() {
        return Err(format!("S = {s}, causal {causal}: the probe kernel's O differs from the plain kernel's").into());
    }
    let t = Timeline::read(&probe.to_host()?);
    let units = heads * s.div_ceil(128);
    Ok(format!(
        "{s:>5}  {causal:>6}  {heads:>5}  {units:>5}  {:>9.4} {:>9.4} | {} | {} | {}",
        ms[0],
        ms[1],
        t.consumer_phases(),
        t.producer_phases(),
        t.q_flight()
    ))
}

/// One probe launch's readings: `at[program][unit][warpgroup][event]`, nanoseconds, for the units
/// each program ran.
struct Timeline {
    at: Vec<Vec<[Vec<i64>; 3]>>,
}

impl Timeline {
    fn read(probe: &HostTensor<i64>) -> Timeline {
        let per_program = probe.shape()[0] / 132;
        let reading = |p, n, wg, e| kernels::probe_reading(probe, p, n, wg, e).unwrap_or(-1);
        let at = (0..132)
            .map(|p| {
                (0..per_program)
                    .map(|n| [0, 1, 2].map(|wg| (0..PROBE_EVENTS[wg].len()).map(|e| reading(p, n, wg, e)).collect()))
                    .take_while(|unit: &[Vec<i64>; 3]| unit.iter().all(|events| events.iter().all(|&r| r >= 0)))
                    .collect()
            })
            .collect();
        Timeline { at }
    }

    /// The mean in microseconds of `f` over every unit (and its successor, if `f` needs one) of
    /// every program.
    fn mean(&self, f: impl Fn(&[Vec<i64>; 3], Option<&[Vec<i64>; 3]>) -> Option<i64>) -> f64 {
        let values: Vec<i64> = self
            .at
            .iter()
            .flat_map(|units| units.iter().enumerate().filter_map(|(n, u)| f(u, units.get(n + 1))))
            .collect();
        if values.is_empty() {
            return f64::NAN;
        }
        values.iter().sum::<i64>() as f64 / values.len() as f64 / 1e3
    }

    /// Waiting for Q, for the first K and V, the first scores, the loop, the O store, and the gap
    /// to the next unit: the two consumers' mean.
    fn consumer_phases(&self) -> String {
        let phase = |e: usize| self.mean(|u, _| Some((u[1][e + 1] - u[1][e] + u[2][e + 1] - u[2][e]) / 2));
        let to_next = self.mean(|u, next| next.map(|nx| (nx[1][0] - u[1][5] + nx[2][0] - u[2][5]) / 2));
        format!(
            "{:>6.2}  {:>8.2}  {:>7.2}  {:>6.2}  {:>7.2}  {:>7.2}",
            phase(0),
            phase(1),
            phase(2),
            phase(3),
            phase(4),
            to_next
        )
    }

    /// Waiting for the Q buffer, and issuing the unit's K and V.
    fn producer_phases(&self) -> String {
        let phase = |e: usize| self.mean(|u, _| Some(u[0][e + 1] - u[0][e]));
        format!("{:>8.2}  {:>9.2}", phase(0), phase(1))
    }

    /// From the producer's "Q issued" to the consumers' "Q arrived".
    fn q_flight(&self) -> String {
        format!("{:>8.2}", self.mean(|u, _| Some((u[1][1] + u[2][1]) / 2 - u[0][1])))
    }
}
