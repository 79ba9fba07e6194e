//! A program's shared state: its shared memory and its mbarriers, which its warpgroups (one host
//! thread each) arrive on and wait for, and the deadlock detector.
//!
//! A barrier completes a phase after `arrivals` arrivals. Each warpgroup waits with the parity of
//! its own count of waits on that barrier, exactly like `mbarrier.try_wait.parity` with a
//! per-thread parity bit flipped after each wait: a wait for parity `p` returns once the number of
//! completed phases has the other parity. (So a warpgroup two phases behind waits for a third
//! phase, as on the GPU.)
//!
//! Entering a `run_scoped` that allocates shared memory or barriers, and leaving one that allocates
//! barriers, is a program-wide barrier (`bar.sync 0` in the PTX): it completes when every
//! warpgroup that has not finished has reached it (a finished warpgroup counts as arrived).
//!
//! Deadlock: when every warpgroup of the program that has not finished is blocked (waiting for a
//! barrier phase that has not completed, or at a program-wide barrier), nothing can unblock it. The last warpgroup to block (or to finish) sees this
//! under the lock, records an error naming each waiting warpgroup and its barrier, and wakes the
//! others, who give up. Any other failure of a warpgroup wakes and stops the others the same way.

use std::collections::HashMap;
use std::sync::atomic::AtomicU64;
use std::sync::{Condvar, Mutex, MutexGuard};

use tessel_compiler::typeck::{Alloc, AllocKind};

use super::memory::cells;
use crate::Error;

/// A warpgroup waiting for a barrier phase, for the message.
struct Waiting {
    key: (usize, usize),
    phase: u64,
}

/// One mbarrier object.
#[derive(Clone, Copy, Debug, Default)]
struct BarrierState {
    expected: u32,
    /// Arrivals in the current phase.
    arrived: u32,
    completed: u64,
    /// Which entry of its `run_scoped` initialised it (see [`ProgramState::init_barriers`]).
    epoch: u64,
}

/// What a blocked warpgroup waits for.
#[derive(Clone, Copy, Debug)]
enum Blocked {
    /// A phase of a barrier (alloc, index): the warpgroup's count of earlier waits on it.
    Phase { key: (usize, usize), phase: u64 },
    /// The program-wide barrier, until its generation moves on.
    Program { generation: u64 },
}

/// The program-wide barrier of `run_scoped` (`bar.sync 0`).
#[derive(Clone, Copy, Debug, Default)]
struct ProgramBarrier {
    arrived: usize,
    generation: u64,
}

#[derive(Debug, Default)]
struct SyncState {
    barriers: HashMap<(usize, usize), BarrierState>,
    program: ProgramBarrier,
    /// Warpgroups that have not finished.
    live: usize,
    waiting: Vec<Option<Blocked>>,
    /// The first failure of any warpgroup of the program; the others stop when they see it.
    failure: Option<Error>,
}

impl SyncState {
    fn satisfied(&self, b: Blocked) -> bool {
        match b {
            Blocked::Phase { key, phase } => {
                let completed = self.barriers.get(&key).map_or(0, |b| b.completed);
                completed % 2 != phase % 2
            }
            Blocked::Program { generation } => self.program.generation != generation,
        }
    }

    /// Completes the program-wide barrier if every running warpgroup has reached it.
    fn release_program(&mut self, wake: &Condvar) {
        if self.program.arrived > 0 && self.program.arrived >= self.live {
            self.program = ProgramBarrier { arrived: 0, generation: self.program.generation + 1 };
            wake.notify_all();
        }
    }

    fn deadlocked(&self) -> bool {
        let blocked = self.waiting.iter().flatten().filter(|w| !self.satisfied(**w)).count();
        self.live > 0 && blocked == self.live
    }
}

/// Where a program is, for a deadlock message.
pub(crate) struct Place<'a> {
    pub kernel: &'a str,
    pub program: [usize; 3],
    pub allocs: &'a [Alloc],
}

impl Place<'_> {
    /// `bar` or `full.at(2)`.
    pub(crate) fn barrier_name(&self, (alloc, index): (usize, usize)) -> String {
        let a = &self.allocs[alloc];
        match a.kind {
            AllocKind::Barrier { count, .. } if count > 1 => format!("`{}.at({index})`", a.name),
            _ => format!("`{}`", a.name),
        }
    }
}

/// A program's shared memory and barriers.
pub(crate) struct ProgramState {
    pub smem: Vec<AtomicU64>,
    sync: Mutex<SyncState>,
    wake: Condvar,
}

/// What `wait` saw: the phase completed, or the program stopped (the failure is recorded).
pub(crate) enum WaitEnd {
    Done,
    Stopped,
}

impl ProgramState {
    /// A program of `warpgroups` warpgroups with `slots` shared-memory slots, which read as NaN
    /// until written (uninitialised shared memory).
    pub(crate) fn new(slots: usize, warpgroups: usize) -> ProgramState {
        let sync = SyncState { live: warpgroups, waiting: vec![None; warpgroups], ..SyncState::default() };
        ProgramState { smem: cells(slots, f64::NAN), sync: Mutex::new(sync), wake: Condvar::new() }
    }

    fn lock(&self) -> MutexGuard<'_, SyncState> {
        // A warpgroup that panicked while holding the lock left consistent state (no update spans
        // an unwind point), so a poisoned lock is still usable.
        self.sync.lock().unwrap_or_else(|p| p.into_inner())
    }

    /// `mbarrier.init` of the `count` barriers of allocation `alloc` for a warpgroup's `epoch`-th
    /// entry of the `run_scoped` that allocates them. The first warpgroup to enter for the
    /// `epoch`-th time initialises them; the others find them initialised (on the GPU one thread
    /// initialises them before a block-wide barrier).
    pub(crate) fn init_barriers(&self, alloc: usize, count: usize, expected: u32, epoch: u64) {
        let mut s = self.lock();
        for i in 0..count {
            let b = s.barriers.entry((alloc, i)).or_default();
            if epoch > b.epoch {
                *b = BarrierState { expected, arrived: 0, completed: 0, epoch };
            }
        }
    }

    /// One arrival on a barrier.
    pub(crate) fn arrive(&self, key: (usize, usize)) {
        let mut s = self.lock();
        let b = s.barriers.entry(key).or_insert(BarrierState { expected: 1, ..BarrierState::default() });
        b.arrived += 1;
        if b.arrived >= b.expected {
            b.arrived = 0;
            b.completed += 1;
            self.wake.notify_all();
        }
    }

    /// Blocks warpgroup `wg` until the phase `phase` of barrier `key` completes (by parity).
    pub(crate) fn wait(&self, wg: usize, key: (usize, usize), phase: u64, place: &Place) -> WaitEnd {
        let s = self.lock();
        self.block(s, wg, Blocked::Phase { key, phase }, place)
    }

    /// The program-wide barrier: blocks warpgroup `wg` until every running warpgroup reached it.
    pub(crate) fn sync_program(&self, wg: usize, place: &Place) -> WaitEnd {
        let mut s = self.lock();
        let me = Blocked::Program { generation: s.program.generation };
        s.program.arrived += 1;
        s.release_program(&self.wake);
        self.block(s, wg, me, place)
    }

    /// Waits (under the lock) until `me` is satisfied, the program fails, or it deadlocks.
    fn block(&self, mut s: MutexGuard<'_, SyncState>, wg: usize, me: Blocked, place: &Place) -> WaitEnd {
        loop {
            if s.failure.is_some() {
                s.waiting[wg] = None;
                return WaitEnd::Stopped;
            }
            if s.satisfied(me) {
                s.waiting[wg] = None;
                return WaitEnd::Done;
            }
            s.waiting[wg] = Some(me);
            if s.deadlocked() {
                let msg = deadlock_message(&s, place);
                s.failure = Some(Error::Interpreter(msg));
                s.waiting[wg] = None;
                self.wake.notify_all();
                return WaitEnd::Stopped;
            }
            s = self.wake.wait(s).unwrap_or_else(|p| p.into_inner());
        }
    }

    /// Warpgroup `wg` is done (normally, with an error, or by a panic): the others may now be
    /// deadlocked.
    pub(crate) fn finish(&self, wg: usize, place: &Place) {
        let mut s = self.lock();
        s.live = s.live.saturating_sub(1);
        s.waiting[wg] = None;
        s.release_program(&self.wake);
        if s.failure.is_none() && s.deadlocked() {
            let msg = deadlock_message(&s, place);
            s.failure = Some(Error::Interpreter(msg));
        }
        self.wake.notify_all();
    }

    /// Records a warpgroup's failure (the first one wins) and stops the others.
    pub(crate) fn fail(&self, err: Error) {
        let mut s = self.lock();
        if s.failure.is_none() {
            s.failure = Some(err);
        }
        self.wake.notify_all();
    }

    /// The program's failure, if any.
    pub(crate) fn failure(&self) -> Option<Error> {
        self.lock().failure.clone()
    }
}

/// Names every blocked warpgroup, the barrier and phase it waits for, and the barrier's state.
fn deadlock_message(s: &SyncState, place: &Place) -> String {
    let mut parts = Vec::new();
    for (wg, w) in s.waiting.iter().enumerate() {
        let (key, phase) = match w {
            None => continue,
            Some(Blocked::Phase { key, phase }) => (*key, *phase),
            Some(Blocked::Program { .. }) => {
                parts.push(format!(
                    "warpgroup {wg} waits at the program-wide barrier of a `run_scoped` that allocates shared \
                     memory or barriers ({} of {} running warpgroup(s) there; every warpgroup must enter and leave \
                     such a scope)",
                    s.program.arrived, s.live
                ));
                continue;
            }
        };
        let w = Waiting { key, phase };
        let b = s.barriers.get(&w.key).copied().unwrap_or_default();
        let mut part = format!(
            "warpgroup {wg} waits on barrier {} for phase {} (parity {}), but it has completed {} phase(s) and has \
             {} of {} arrival(s) in phase {}",
            place.barrier_name(w.key),
            w.phase,
            w.phase % 2,
            b.completed,
            b.arrived,
            b.expected,
            b.completed
        );
        if b.completed > w.phase {
            // The parity the warpgroup waits with names a later phase (mbarrier.try_wait.parity).
            part.push_str(&format!(
                " (the barrier ran ahead of this warpgroup's waits: did a phase get more than {} arrival(s), e.g. \
                 two TMA loads on a `Barrier<1>`? Declare `Barrier<n>` for n arrivals per phase)",
                b.expected
            ));
        }
        parts.push(part);
    }
    let finished = s.waiting.len() - parts.len();
    let [x, y, z] = place.program;
    format!(
        "deadlock in `{}`, program ({x}, {y}, {z}): every running warpgroup waits on a barrier that nothing \
         will complete ({finished} warpgroup(s) finished): {}",
        place.kernel,
        parts.join("; ")
    )
}
