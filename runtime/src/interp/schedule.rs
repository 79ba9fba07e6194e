//! Running a grid: clusters spread over the host's cores, and one host thread per warpgroup of
//! every program of a cluster.
//!
//! Worker threads (as many as cores, at most one per cluster) take clusters in order from an atomic
//! counter; for a kernel whose programs wait on each other's semaphores, as many as the GPU runs
//! programs at once (one per SM, [`CONCURRENT_PROGRAMS`]), so that programs that all wait for each
//! other (the split-K kernels' tiles) run together, as they do on the GPU. A cluster runs as one
//! unit because multicast copies write into every program of it. A
//! cluster of one single-warpgroup program runs on the worker itself; otherwise each warpgroup of
//! each of its programs gets a scoped thread, so barriers between warpgroups behave as on the GPU.
//!
//! A kernel of several devices (`devices = W`) runs every device's grid in the one schedule: the
//! clusters are claimed device by device within each cluster index (cluster 0 of every device,
//! then cluster 1 of every device, ..), so that programs which wait on each other across devices
//! (a ring's neighbours) run at once, as the devices of a group run their grids at once; a kernel
//! that waits on semaphores runs as many programs at once as `W` H200s.
//!
//! On a failure the launch halts (`Launch::halted`): no new cluster starts, and a running cluster
//! that waits on a semaphore gives up without an error of its own. Clusters are claimed in order, so
//! the failure of the lowest failing cluster is reported, whatever the timing (a cluster that gave
//! up reports none).

use std::panic::{catch_unwind, AssertUnwindSafe};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Mutex;
use std::thread;

use super::exec::{Launch, Warpgroup};
use super::memory::SmemView;
use super::sync::{Place, ProgramState};
use crate::{Error, Result};
use tessel_ir::program::Program;

/// The first failure, by cluster index.
type Failure = Mutex<Option<(usize, Error)>>;

fn record(failed: &Failure, cluster: usize, err: Error) {
    let mut f = failed.lock().unwrap_or_else(|p| p.into_inner());
    if f.as_ref().is_none_or(|(c, _)| cluster < *c) {
        *f = Some((cluster, err));
    }
}

/// How many programs a kernel that waits on semaphores runs at once: as many as an H200 has SMs,
/// one program per SM (its programs take most of an SM's shared memory).
pub(crate) const CONCURRENT_PROGRAMS: usize = 132;

/// Runs every program of the grid.
pub(crate) fn run(prog: &'static Program, launch: &Launch) -> Result<()> {
    let clusters: usize = (0..3).map(|d| launch.grid[d] / prog.cluster[d]).product::<usize>() * launch.devices;
    let cores = thread::available_parallelism().map_or(1, |n| n.get());
    let at_once = if prog.waits_on_semaphores {
        CONCURRENT_PROGRAMS * launch.devices / prog.cluster.iter().product::<usize>().max(1)
    } else {
        cores
    };
    let workers = at_once.min(clusters).max(1);
    let next = AtomicUsize::new(0);
    let failed: Failure = Mutex::new(None);
    let work = || {
        while !launch.halted.load(Ordering::Relaxed) {
            let c = next.fetch_add(1, Ordering::Relaxed);
            if c >= clusters {
                break;
            }
            launch.advance();
            if let Err(e) = run_cluster(prog, launch, c) {
                record(&failed, c, e);
                launch.halted.store(true, Ordering::Relaxed);
            }
        }
    };
    thread::scope(|s| {
        let mut handles = Vec::new();
        for _ in 0..workers {
            // A worker that cannot start leaves its share to the others; with none, nothing ran.
            match thread::Builder::new().spawn_scoped(s, work) {
                Ok(h) => handles.push(h),
                Err(e) if handles.is_empty() => {
                    record(&failed, 0, Error::Internal(format!("no interpreter thread: {e}")))
                }
                Err(_) => break,
            }
        }
        for h in handles {
            if let Err(p) = h.join() {
                let msg = format!("an interpreter worker panicked: {}", panic_text(&p));
                record(&failed, usize::MAX, Error::Internal(msg));
            }
        }
    });
    match failed.into_inner().unwrap_or_else(|p| p.into_inner()) {
        Some((_, e)) => Err(e),
        None => Ok(()),
    }
}

/// Runs the programs of cluster `g` of the launch: cluster `g / W` (clusters numbered x fastest,
/// like programs) of device `g % W`.
fn run_cluster(prog: &'static Program, launch: &Launch, g: usize) -> Result<()> {
    let (c, device) = (g / launch.devices, g % launch.devices);
    let [cx, cy, cz] = prog.cluster;
    let (nx, ny) = (launch.grid[0] / cx, launch.grid[1] / cy);
    let origin = [(c % nx) * cx, (c / nx % ny) * cy, c / (nx * ny) * cz];
    let size = cx * cy * cz;
    // A program's coordinates from its cluster rank (`%cluster_ctarank` is x fastest).
    let program = |rank: usize| [origin[0] + rank % cx, origin[1] + rank / cx % cy, origin[2] + rank / (cx * cy)];
    let slots = SmemView::slots_for(prog.smem_bytes);
    let shadow = launch.race.as_ref().map(|_| prog.smem_bytes as usize);
    let states = ProgramState::cluster(size, slots, prog.warpgroups, shadow);
    let mut results = Vec::new();
    if size * prog.warpgroups == 1 {
        results.push(run_warpgroup(prog, launch, (&states, device), 0, program(0), 0));
    } else {
        thread::scope(|s| {
            let mut handles = Vec::new();
            'spawn: for rank in 0..size {
                for wg in 0..prog.warpgroups {
                    let states = &states;
                    let body = move || run_warpgroup(prog, launch, (states, device), rank, program(rank), wg);
                    match thread::Builder::new().spawn_scoped(s, body) {
                        Ok(h) => handles.push(h),
                        Err(e) => {
                            // The started warpgroups may wait for this one: stop them all.
                            let err = Error::Internal(format!("could not start a warpgroup thread: {e}"));
                            states.iter().for_each(|st| st.fail(err.clone()));
                            break 'spawn;
                        }
                    }
                }
            }
            for h in handles {
                results.push(h.join().unwrap_or_else(|p| Err(Error::Internal(panic_text(&p)))));
            }
        });
    }
    // A cluster that gave up for another cluster's failure has none of its own to report.
    if states.iter().any(ProgramState::halted) {
        return Ok(());
    }
    // The program's recorded failure is the cause; a warpgroup's own error may only say it stopped.
    if let Some(e) = states.iter().find_map(ProgramState::failure) {
        return Err(e);
    }
    results.into_iter().collect()
}

/// Marks a warpgroup finished when it ends, however it ends.
struct Finish<'a> {
    state: &'a ProgramState,
    wg: usize,
    place: Place<'a>,
}

impl Drop for Finish<'_> {
    fn drop(&mut self) {
        self.state.finish(self.wg, &self.place);
    }
}

fn run_warpgroup(
    prog: &'static Program,
    launch: &Launch,
    (states, device): (&[ProgramState], usize),
    rank: usize,
    program: [usize; 3],
    wg: usize,
) -> Result<()> {
    let state = &states[rank];
    let _finish = Finish { state, wg, place: Place { kernel: &prog.name, program, allocs: &prog.allocs } };
    let run =
        catch_unwind(AssertUnwindSafe(|| Warpgroup::new(prog, launch, (states, device), rank, program, wg).run()));
    let [x, y, z] = program;
    let on = if launch.devices > 1 { format!("device {device}, ") } else { String::new() };
    let at = format!("`{}`, {on}program ({x}, {y}, {z}), warpgroup {wg}", prog.name);
    let err = match run {
        Ok(Ok(())) => return Ok(()),
        Ok(Err(Error::Interpreter(msg))) => Error::Interpreter(format!("{at}: {msg}")),
        Ok(Err(Error::Internal(msg))) => Error::Internal(format!("{at}: {msg}")),
        Ok(Err(e)) => e,
        Err(p) => Error::Internal(format!("{at}: the interpreter panicked: {}", panic_text(&p))),
    };
    state.fail(err.clone());
    Err(err)
}

fn panic_text(p: &Box<dyn std::any::Any + Send>) -> String {
    p.downcast_ref::<&str>().map(|s| s.to_string()).or_else(|| p.downcast_ref::<String>().cloned()).unwrap_or_default()
}
