//! Timing GPU work with CUDA events: warm-up, then one event pair per launch, median. Contenders
//! are timed interleaved, round by round, so that they all run at the same clocks: under a long
//! GEMM load the H200 settles at lower clocks within about a second, and timing one contender
//! after the other favours whichever runs first (8192^3 moved by 7% between runs that way).
//! With an idle gap after each round, the card stays cool and near its top clocks: that measures
//! each kernel at the clocks of an occasional GEMM rather than of a sustained GEMM load.

use std::ffi::c_void;
use std::sync::mpsc;
use std::time::Duration;

use cudarc::driver::result as driver_result;
use cudarc::driver::sys::CUevent_flags;
use cudarc::driver::{CudaEvent, CudaStream};
use tessel::Device;

use crate::Res;

/// Launches queued behind one gate. The driver's queue holds far more; a bounded batch keeps a
/// large `BENCH_RUNS` from filling it while the gate holds the stream.
const GATE_BATCH: usize = 64;

/// How long a gate holds its stream at most. It is released as soon as its batch is queued; the
/// timeout only matters if a driver call waited for the stream meanwhile, which would deadlock.
const GATE_TIMEOUT: Duration = Duration::from_secs(5);

/// One contender: queues one run on the device's stream, on the operand set it is given.
pub type Op<'a, S> = Box<dyn FnMut(&mut S) -> Res<()> + 'a>;

/// Runs `op` `warmup` times, then `runs` times between CUDA events, rotating over `sets` (with
/// a `gap`, the GPU idles that long after each timed run); the median time in milliseconds.
/// (`bench_attention`'s; the GEMM benchmarks time their contenders together.)
#[allow(dead_code)]
pub fn time_median<S>(
    dev: &Device,
    runs: usize,
    warmup: usize,
    gap: Option<Duration>,
    sets: &mut [S],
    op: impl FnMut(&mut S) -> Res<()>,
) -> Res<f64> {
    let mut ops: [Op<S>; 1] = [Box::new(op)];
    Ok(time_interleaved(dev, runs, warmup, sets, &mut ops, gap)?[0])
}

/// Runs every op once per round, `warmup` rounds and then `runs` timed ones, each launch between
/// its own two CUDA events; each op's median time in ms. With a `gap`, the GPU idles that long
/// after each timed round (rounds are then queued one at a time).
///
/// Every launch takes the next operand set, so that each finds its operands as cold as the
/// others do: when a round's contenders shared one set, the later ones found the first one's
/// operands in the L2 (on the H200, 1% at 2048^3 bf16 and 4% at 2048^3 fp8, in the first
/// contender's disfavour).
pub fn time_interleaved<S>(
    dev: &Device,
    runs: usize,
    warmup: usize,
    sets: &mut [S],
    ops: &mut [Op<S>],
    gap: Option<Duration>,
) -> Res<Vec<f64>> {
    let count = sets.len();
    let mut launches = 0;
    let mut next_set = || {
        launches += 1;
        (launches - 1) % count
    };
    for _ in 0..warmup {
        for op in ops.iter_mut() {
            op(&mut sets[next_set()])?;
        }
    }
    dev.synchronize()?;
    let (context, stream) = (dev.context(), dev.stream());
    let timed = Some(CUevent_flags::CU_EVENT_DEFAULT);
    let pair = || -> Res<(CudaEvent, CudaEvent)> { Ok((context.new_event(timed)?, context.new_event(timed)?)) };
    // events[round][op]
    let events = (0..runs).map(|_| ops.iter().map(|_| pair()).collect::<Res<Vec<_>>>()).collect::<Res<Vec<_>>>()?;
    let rounds_per_gate = if gap.is_some() { 1 } else { (GATE_BATCH / ops.len().max(1)).max(1) };
    for chunk in events.chunks(rounds_per_gate) {
        let gate = Gate::hold(stream)?;
        for round in chunk {
            for (op, (start, end)) in ops.iter_mut().zip(round) {
                let set = &mut sets[next_set()];
                start.record(stream)?;
                op(set)?;
                end.record(stream)?;
            }
        }
        drop(gate);
        if let Some(gap) = gap {
            dev.synchronize()?;
            std::thread::sleep(gap);
        }
    }
    dev.synchronize()?;
    (0..ops.len())
        .map(|o| {
            let mut times = events
                .iter()
                .map(|round| Ok(f64::from(round[o].0.elapsed_ms(&round[o].1)?)))
                .collect::<Res<Vec<_>>>()?;
            Ok(median(&mut times))
        })
        .collect()
}

/// The median of `times` (the mean of the middle two for an even count).
pub fn median(times: &mut [f64]) -> f64 {
    times.sort_by(f64::total_cmp);
    let mid = times.len() / 2;
    match times.len() % 2 {
        0 => (times[mid - 1] + times[mid]) / 2.0,
        _ => times[mid],
    }
}

/// Holds a stream at a host function until dropped, so that a batch of launches is queued before
/// the GPU starts on it: otherwise a short kernel can finish before the CPU has queued the next,
/// and the gap lands inside an event pair. (cudarc's own event tests hold streams the same way.)
/// `bench_collective` holds every rank's stream, so that the ranks start together.
pub struct Gate {
    /// Dropping it disconnects the channel, which releases the host function.
    _release: mpsc::Sender<()>,
}

impl Gate {
    /// Holds `stream` until the gate is dropped.
    pub fn hold(stream: &CudaStream) -> Res<Gate> {
        stream.context().bind_to_thread()?;
        let (release, wait) = mpsc::channel::<()>();
        let wait = Box::into_raw(Box::new(wait));
        // Safety: `wait_for_release` matches `CUhostFn`, makes no CUDA call, and takes ownership of
        // `wait`, which stays valid until it runs; `stream` is a live stream of the bound context.
        let queued =
            unsafe { driver_result::stream::launch_host_function(stream.cu_stream(), wait_for_release, wait.cast()) };
        if let Err(err) = queued {
            // Safety: the launch failed, so the callback will never run and own the box.
            drop(unsafe { Box::from_raw(wait) });
            return Err(err.into());
        }
        Ok(Gate { _release: release })
    }
}

/// The host function of a [`Gate`]: returns once the gate's sender is dropped (or after
/// [`GATE_TIMEOUT`]).
unsafe extern "C" fn wait_for_release(data: *mut c_void) {
    // Safety: `data` is the box `Gate::hold` leaked for this call, handed over exactly once.
    let wait = unsafe { Box::from_raw(data.cast::<mpsc::Receiver<()>>()) };
    let _ = wait.recv_timeout(GATE_TIMEOUT);
}
