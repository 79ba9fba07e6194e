//! Timing GPU work with CUDA events: warm-up, then one event pair per launch, median.

use std::ffi::c_void;
use std::sync::mpsc;
use std::time::Duration;

use cudarc::driver::result as driver_result;
use cudarc::driver::sys::CUevent_flags;
use cudarc::driver::CudaStream;
use tessel::Device;

use crate::Res;

/// Launches queued behind one gate. The driver's queue holds far more; a bounded batch keeps a
/// large `BENCH_RUNS` from filling it while the gate holds the stream.
const GATE_BATCH: usize = 64;

/// How long a gate holds its stream at most. It is released as soon as its batch is queued; the
/// timeout only matters if a driver call waited for the stream meanwhile, which would deadlock.
const GATE_TIMEOUT: Duration = Duration::from_secs(5);

/// Runs `op(set)` `warmup` times, then `runs` times, each between two CUDA events on the device's
/// stream, and returns the median time in milliseconds. `op` gets the index of the operand set to
/// use, rotating over `sets`, and must only queue work on `dev`'s stream.
pub fn time_median(
    dev: &Device,
    runs: usize,
    warmup: usize,
    sets: usize,
    mut op: impl FnMut(usize) -> Res<()>,
) -> Res<f64> {
    for i in 0..warmup {
        op(i % sets)?;
    }
    dev.synchronize()?;
    let (context, stream) = (dev.context(), dev.stream());
    let timed = Some(CUevent_flags::CU_EVENT_DEFAULT);
    let events =
        (0..runs).map(|_| Ok((context.new_event(timed)?, context.new_event(timed)?))).collect::<Res<Vec<_>>>()?;
    let mut next = warmup;
    for batch in events.chunks(GATE_BATCH) {
        let gate = Gate::hold(stream)?;
        for (start, end) in batch {
            start.record(stream)?;
            op(next % sets)?;
            end.record(stream)?;
            next += 1;
        }
        drop(gate);
    }
    dev.synchronize()?;
    let mut times = events.iter().map(|(start, end)| Ok(f64::from(start.elapsed_ms(end)?))).collect::<Res<Vec<_>>>()?;
    Ok(median(&mut times))
}

/// The median of `times` (the mean of the middle two for an even count).
fn median(times: &mut [f64]) -> f64 {
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
struct Gate {
    /// Dropping it disconnects the channel, which releases the host function.
    _release: mpsc::Sender<()>,
}

impl Gate {
    fn hold(stream: &CudaStream) -> Res<Gate> {
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
