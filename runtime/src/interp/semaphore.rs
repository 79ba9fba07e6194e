//! Global-memory semaphores, for one warpgroup: `semaphore_signal` adds its count to a counter,
//! `semaphore_wait` polls the counter until it holds the count, then takes it.
//!
//! A counter is one `u32` element of a global buffer, an `f64` in an `AtomicU64` like every element.
//! The signal is a release read-modify-write and the take an acquire one, so the stores a warpgroup
//! made before signalling (relaxed atomics, like every global store here) are visible to the loads
//! its waiter makes after the wait, as `red.release.gpu` and `atom.acquire.gpu` order them in the
//! PTX. Counters wrap at 2^32, as `red.add.u32` does.
//!
//! A wait always ends. It stops when its own cluster fails, and gives up without an error of its
//! own when the launch halts (another cluster failed: perhaps the one it waits for). Otherwise it
//! reports that no program signalled once the whole launch has gone without progress (no loop
//! iteration, no signal, no cluster started: [`Launch::progress`](super::exec::Launch::progress))
//! for [`Launch::wait_limit`](super::exec::Launch::wait_limit): every other running program is
//! then blocked too. A predecessor that computes for a long time keeps the wait going, however
//! long. Clusters are claimed in increasing order by as many workers as the host has cores, so a
//! program can only be signalled by programs of its own cluster and of lower-numbered ones, and a
//! wait for any other may never see its signal.

use std::env::{self, VarError};
use std::sync::atomic::{AtomicU64, Ordering};
use std::thread;
use std::time::{Duration, Instant};

use tessel_ir::ops::SemaphoreOp;

use super::effects::stopped;
use super::exec::Warpgroup;
use super::numeric::error;
use super::schedule::CONCURRENT_PROGRAMS;
use super::value::Value;
use crate::Result;
use tessel_ir::program::Expr;

/// How long a `semaphore_wait` lets the launch go without progress before it reports that nothing
/// signalled, unless [`WAIT_LIMIT_VAR`] says otherwise.
const WAIT_LIMIT: Duration = Duration::from_secs(10);

/// The environment variable that sets the limit, in milliseconds.
const WAIT_LIMIT_VAR: &str = "TESSEL_SEMAPHORE_WAIT_MS";

/// Polls that only yield the host thread; later polls sleep [`POLL_SLEEP`] in between, so a long
/// wait leaves the cores to the programs it waits for.
const SPIN_POLLS: u32 = 64;
const POLL_SLEEP: Duration = Duration::from_micros(50);

impl<'a> Warpgroup<'a> {
    /// `semaphore_signal(sems, i, n)`, `semaphore_wait(sems, i, n)`, or a signal of `i..end`.
    pub(crate) fn semaphore(
        &mut self,
        op: SemaphoreOp,
        sems: &Expr,
        (index, end): (&Expr, Option<&Expr>),
        count: Option<&Expr>,
    ) -> Result<Value> {
        let Value::Gmem(param) = self.eval(sems)? else {
            return Err(error("internal: a semaphore array that is not a global array"));
        };
        let i = self.eval_scalar(index)?.to_i64();
        let end = match end {
            Some(e) => self.eval_scalar(e)?.to_i64(),
            None => i + 1,
        };
        // The count is a 32-bit register on the GPU: its bits, as `u32`.
        let n = match count {
            Some(c) => self.eval_scalar(c)?.to_i64() as u32,
            None => 1,
        };
        match op {
            SemaphoreOp::Signal => {
                // Every index is checked before any counter changes, as one release covers them.
                let cells = (i..end).map(|i| self.counter(op, param, i)).collect::<Result<Vec<_>>>()?;
                // The counters release the signaller's clocks before a waiter can take the count.
                if let (Some(d), Some(r)) = (&self.launch.race, &mut self.race) {
                    (i..end).for_each(|i| d.signal(param, i as usize, &r.clocks));
                    r.tick();
                }
                for cell in cells {
                    signal(cell, n);
                }
                self.launch.advance();
            }
            SemaphoreOp::Wait => {
                self.wait_for(self.counter(op, param, i)?, n, param, i)?;
                if let (Some(d), Some(r)) = (&self.launch.race, &mut self.race) {
                    d.acquire(param, i as usize, &mut r.clocks);
                }
            }
        }
        Ok(Value::Unit)
    }

    /// Counter `i` of parameter `param`; an index outside the array is an error (the PTX skips it).
    fn counter(&self, op: SemaphoreOp, param: usize, i: i64) -> Result<&'a AtomicU64> {
        let cells = &self.global(param)?.data;
        usize::try_from(i).ok().and_then(|i| cells.get(i)).ok_or_else(|| {
            let n = self.prog.params.len().max(1);
            let short = &self.prog.params[param % n].name;
            let name = self.array_name(param);
            error(format!(
                "`{}({short}, {i})`: index {i} is outside the {} semaphores of {name}",
                op.name(),
                cells.len()
            ))
        })
    }

    /// Polls `cell` until it takes `n` from it, the launch stops, or the launch makes no progress
    /// for its wait limit.
    fn wait_for(&self, cell: &AtomicU64, n: u32, param: usize, i: i64) -> Result<()> {
        let mut seen = self.launch.progress.load(Ordering::Relaxed);
        let mut since = Instant::now();
        let mut polls = 0u32;
        loop {
            let held = match take(cell, n) {
                Ok(()) => return Ok(()),
                Err(held) => held,
            };
            if self.launch.halted.load(Ordering::Relaxed) {
                self.state().halt();
                return Err(stopped());
            }
            if self.state().cluster_failed() {
                return Err(stopped());
            }
            let progress = self.launch.progress.load(Ordering::Relaxed);
            if progress != seen {
                (seen, since) = (progress, Instant::now());
            } else if since.elapsed() > self.launch.wait_limit {
                let name = self.array_name(param);
                return Err(error(format!(
                    "`semaphore_wait` gave up on semaphore {i} of {name}, which holds {held} of the {n} it waits \
                     for, after {} ms in which no program of the launch made progress: no program signalled it (the \
                     interpreter runs a program alongside those of its own cluster and of lower-numbered clusters, \
                     and of the next ones up to {CONCURRENT_PROGRAMS} programs at once, so it can wait only for their \
                     signals)",
                    self.launch.wait_limit.as_millis()
                )));
            }
            polls = polls.saturating_add(1);
            if polls < SPIN_POLLS {
                thread::yield_now();
            } else {
                thread::sleep(POLL_SLEEP);
            }
        }
    }
}

/// The launch's wait limit: [`WAIT_LIMIT`], or [`WAIT_LIMIT_VAR`] milliseconds.
pub(crate) fn wait_limit() -> Result<Duration> {
    let text = match env::var(WAIT_LIMIT_VAR) {
        Err(VarError::NotPresent) => return Ok(WAIT_LIMIT),
        Ok(text) => text,
        Err(VarError::NotUnicode(text)) => text.to_string_lossy().into_owned(),
    };
    text.trim().parse().map(Duration::from_millis).map_err(|_| {
        error(format!("{WAIT_LIMIT_VAR}={text:?}: the semaphore wait limit must be a whole number of milliseconds"))
    })
}

/// The counter a cell holds.
fn value(bits: u64) -> u32 {
    f64::from_bits(bits) as u32
}

fn bits(counter: u32) -> u64 {
    f64::from(counter).to_bits()
}

/// Adds `n` to the counter, wrapping; release, so a warpgroup that acquires the sum sees every
/// store this thread made before.
fn signal(cell: &AtomicU64, n: u32) {
    // The closure never declines, so `fetch_update` cannot fail.
    let _ = cell.fetch_update(Ordering::Release, Ordering::Relaxed, |b| Some(bits(value(b).wrapping_add(n))));
}

/// Takes `n` from the counter if it holds at least `n` (acquire, like the PTX's `atom.acquire`);
/// otherwise returns what it holds. A take that races another is retried on the new value.
fn take(cell: &AtomicU64, n: u32) -> std::result::Result<(), u32> {
    let taken = cell.fetch_update(Ordering::Acquire, Ordering::Acquire, |b| {
        let held = value(b);
        (held >= n).then(|| bits(held - n))
    });
    taken.map(drop).map_err(value)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_take_needs_the_whole_count_and_leaves_the_rest() {
        let cell = AtomicU64::new(bits(0));
        signal(&cell, 2);
        assert_eq!(take(&cell, 3), Err(2));
        signal(&cell, 1);
        assert_eq!(take(&cell, 3), Ok(()));
        assert_eq!(take(&cell, 1), Err(0));
        signal(&cell, u32::MAX);
        signal(&cell, 2);
        assert_eq!(value(cell.load(Ordering::Relaxed)), 1, "counters wrap at 2^32");
    }
}
