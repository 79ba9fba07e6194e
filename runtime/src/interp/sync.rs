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
//! warpgroup that has not finished has reached it (a finished warpgroup counts as arrived). In a
//! cluster, entering and leaving a scope that allocates barriers is also a cluster-wide barrier
//! (`barrier.cluster.arrive` / `wait`), over every warpgroup of every program of the cluster: so a
//! peer's copy into this program's shared memory (`copy_smem_to_peer`) lands only once this
//! program has entered the scope, not in memory that an earlier scope still uses.
//!
//! Deadlock: when every warpgroup of the cluster that has not finished is blocked (waiting for a
//! barrier phase that has not completed, or at a program- or cluster-wide barrier), nothing can
//! unblock it. The last warpgroup to block (or to finish) sees this under the lock, records an
//! error naming each waiting warpgroup and its barrier, and wakes the others, who give up. Any
//! other failure of a warpgroup wakes and stops the others the same way.

use std::collections::HashMap;
use std::sync::atomic::AtomicU64;
use std::sync::{Arc, Condvar, Mutex, MutexGuard};

use tessel_ir::memory::{Alloc, AllocKind};

use super::barrier::BarrierState;
pub(crate) use super::barrier::{Arrival, Landing};
use super::memory::cells;
use super::race::{Clocks, Shadow};
use crate::Error;

/// A warpgroup waiting for a barrier phase, for the message.
struct Waiting {
    key: (usize, usize),
    phase: u64,
}

/// What a blocked warpgroup waits for.
#[derive(Clone, Copy, Debug)]
enum Blocked {
    /// A phase of a barrier (alloc, index): the warpgroup's count of earlier waits on it.
    Phase { key: (usize, usize), phase: u64 },
    /// The program-wide barrier, until its generation moves on.
    Program { generation: u64 },
    /// The cluster-wide barrier, until its generation moves on.
    Cluster { generation: u64 },
}

/// The program-wide barrier of `run_scoped` (`bar.sync 0`).
#[derive(Default)]
struct ProgramBarrier {
    arrived: usize,
    generation: u64,
    /// What this generation's arrivals release, and what the last completed one released.
    gathered: Clocks,
    released: Clocks,
}

impl ProgramBarrier {
    /// Completes the generation: its arrivals' clocks become the ones its waiters acquire.
    fn complete(&mut self) {
        self.arrived = 0;
        self.generation += 1;
        self.released = std::mem::take(&mut self.gathered);
    }
}

#[derive(Default)]
struct SyncState {
    barriers: HashMap<(usize, usize), BarrierState>,
    program: ProgramBarrier,
    /// The cluster-wide barrier: arrivals are counted in program 0's, and every program's
    /// generation moves on together.
    cluster: ProgramBarrier,
    /// Warpgroups that have not finished.
    live: usize,
    waiting: Vec<Option<Blocked>>,
    /// The first failure of any warpgroup of the program; the others stop when they see it.
    failure: Option<Error>,
    /// The program stopped because the launch halted while it waited on a semaphore (`failure`
    /// then only stops the cluster's other warpgroups; see [`ProgramState::halt`]).
    halted: bool,
}

impl SyncState {
    fn satisfied(&self, b: Blocked) -> bool {
        match b {
            Blocked::Phase { key, phase } => {
                let completed = self.barriers.get(&key).map_or(0, |b| b.completed);
                completed % 2 != phase % 2
            }
            Blocked::Program { generation } => self.program.generation != generation,
            Blocked::Cluster { generation } => self.cluster.generation != generation,
        }
    }

    /// Completes the program-wide barrier if every running warpgroup has reached it.
    fn release_program(&mut self, wake: &Condvar) {
        if self.program.arrived > 0 && self.program.arrived >= self.live {
            self.program.complete();
            wake.notify_all();
        }
    }

    /// One arrival on barrier `key` (see [`BarrierState::arrive`]); `smem` is this program's.
    fn count_arrival(&mut self, key: (usize, usize), a: Arrival, smem: &[AtomicU64], wake: &Condvar) {
        let b = self.barriers.entry(key).or_insert_with(|| BarrierState::new(1, 0));
        if b.arrive(a, smem) {
            wake.notify_all();
        }
    }

    /// What a warpgroup that was blocked on `b` acquires when it goes on.
    fn released<'s>(&'s self, b: Blocked, all: &'s [SyncState]) -> Option<&'s Clocks> {
        match b {
            Blocked::Phase { key, .. } => self.barriers.get(&key).map(|b| &b.released),
            Blocked::Program { .. } => Some(&self.program.released),
            Blocked::Cluster { .. } => Some(&all[0].cluster.released),
        }
    }

    /// Every warpgroup of the program that has not finished is blocked (true when all finished).
    fn deadlocked_or_done(&self) -> bool {
        let blocked = self.waiting.iter().flatten().filter(|w| !self.satisfied(**w)).count();
        blocked == self.live
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

/// The synchronisation state of the programs of one cluster, under one lock: a cluster-wide
/// arrival makes one program's progress depend on another's, so deadlock is a property of the
/// whole cluster.
struct ClusterSync {
    programs: Mutex<Vec<SyncState>>,
    wake: Condvar,
}

/// A program's shared memory and barriers.
pub(crate) struct ProgramState {
    pub smem: Vec<AtomicU64>,
    /// The race detector's shadow of `smem`, one cell per byte.
    pub shadow: Option<Mutex<Shadow>>,
    /// This program's index in its cluster's state (its `cluster_rank()`).
    rank: usize,
    sync: Arc<ClusterSync>,
}

/// What `wait` saw: the phase completed, or the program stopped (the failure is recorded).
pub(crate) enum WaitEnd {
    Done,
    Stopped,
}

/// Completes the cluster-wide barrier if every running warpgroup of the cluster has reached it.
fn release_cluster(all: &mut [SyncState], wake: &Condvar) {
    let live: usize = all.iter().map(|s| s.live).sum();
    let arrived = all[0].cluster.arrived;
    if arrived > 0 && arrived >= live {
        all[0].cluster.complete();
        for s in all[1..].iter_mut() {
            s.cluster.generation += 1;
        }
        wake.notify_all();
    }
}

/// Whether every warpgroup of the cluster that has not finished is blocked for good.
fn deadlocked(all: &[SyncState]) -> bool {
    all.iter().any(|s| s.live > 0) && all.iter().all(SyncState::deadlocked_or_done)
}

impl ProgramState {
    /// The `size` programs of a cluster, of `warpgroups` warpgroups with `slots` shared-memory
    /// slots each, which read as NaN until written (uninitialised shared memory); with a shadow of
    /// `shadow` cells each when the race detector runs.
    pub(crate) fn cluster(size: usize, slots: usize, warpgroups: usize, shadow: Option<usize>) -> Vec<ProgramState> {
        let program = || SyncState { live: warpgroups, waiting: vec![None; warpgroups], ..SyncState::default() };
        let sync = Arc::new(ClusterSync {
            programs: Mutex::new((0..size).map(|_| program()).collect()),
            wake: Condvar::new(),
        });
        let program = |rank| ProgramState {
            smem: cells(slots, f64::NAN),
            shadow: shadow.map(|n| Mutex::new(Shadow::new(n, true))),
            rank,
            sync: sync.clone(),
        };
        (0..size).map(program).collect()
    }

    fn lock(&self) -> MutexGuard<'_, Vec<SyncState>> {
        // A warpgroup that panicked while holding the lock left consistent state (no update spans
        // an unwind point), so a poisoned lock is still usable.
        self.sync.programs.lock().unwrap_or_else(|p| p.into_inner())
    }

    /// `mbarrier.init` of the `count` barriers of allocation `alloc` for a warpgroup's `epoch`-th
    /// entry of the `run_scoped` that allocates them. The first warpgroup to enter for the
    /// `epoch`-th time initialises them; the others find them initialised (on the GPU one thread
    /// initialises them before a block-wide barrier).
    pub(crate) fn init_barriers(&self, alloc: usize, count: usize, expected: u32, epoch: u64) {
        let mut all = self.lock();
        let s = &mut all[self.rank];
        for i in 0..count {
            let current = s.barriers.get(&(alloc, i)).map_or(0, |b| b.epoch);
            if epoch > current {
                s.barriers.insert((alloc, i), BarrierState::new(expected, epoch));
            }
        }
    }

    /// One arrival on a barrier of this program, from this program or a peer of its cluster
    /// (which is in the barrier's scope too: entering it is a cluster-wide barrier, after this
    /// program initialised the barrier).
    pub(crate) fn arrive(&self, key: (usize, usize), arrival: Arrival) {
        self.lock()[self.rank].count_arrival(key, arrival, &self.smem, &self.sync.wake);
    }

    /// Blocks warpgroup `wg` until the phase `phase` of barrier `key` completes (by parity);
    /// `acquire` then joins what the barrier's completed phases released.
    pub(crate) fn wait(
        &self,
        wg: usize,
        (key, phase): ((usize, usize), u64),
        place: &Place,
        acquire: Option<&mut Clocks>,
    ) -> WaitEnd {
        let all = self.lock();
        self.block(all, wg, Blocked::Phase { key, phase }, place, acquire)
    }

    /// The program-wide barrier: blocks warpgroup `wg` until every running warpgroup reached it;
    /// `clocks` are released to and acquire from every warpgroup's.
    pub(crate) fn sync_program(&self, wg: usize, place: &Place, clocks: Option<&mut Clocks>) -> WaitEnd {
        let mut all = self.lock();
        let s = &mut all[self.rank];
        let me = Blocked::Program { generation: s.program.generation };
        s.program.arrived += 1;
        if let Some(c) = &clocks {
            s.program.gathered.join(c);
        }
        s.release_program(&self.sync.wake);
        self.block(all, wg, me, place, clocks)
    }

    /// The cluster-wide barrier: blocks warpgroup `wg` until every running warpgroup of every
    /// program of the cluster reached it; `clocks` as for [`ProgramState::sync_program`].
    pub(crate) fn sync_cluster(&self, wg: usize, place: &Place, clocks: Option<&mut Clocks>) -> WaitEnd {
        let mut all = self.lock();
        let me = Blocked::Cluster { generation: all[self.rank].cluster.generation };
        all[0].cluster.arrived += 1;
        if let Some(c) = &clocks {
            all[0].cluster.gathered.join(c);
        }
        release_cluster(&mut all, &self.sync.wake);
        self.block(all, wg, me, place, clocks)
    }

    /// Waits (under the lock) until `me` is satisfied, the cluster fails, or it deadlocks; once
    /// satisfied, `acquire` joins what `me` released.
    fn block(
        &self,
        mut all: MutexGuard<'_, Vec<SyncState>>,
        wg: usize,
        me: Blocked,
        place: &Place,
        acquire: Option<&mut Clocks>,
    ) -> WaitEnd {
        loop {
            if all.iter().any(|s| s.failure.is_some()) {
                all[self.rank].waiting[wg] = None;
                return WaitEnd::Stopped;
            }
            if all[self.rank].satisfied(me) {
                all[self.rank].waiting[wg] = None;
                if let (Some(clocks), Some(released)) = (acquire, all[self.rank].released(me, &all)) {
                    clocks.join(released);
                }
                return WaitEnd::Done;
            }
            all[self.rank].waiting[wg] = Some(me);
            if deadlocked(&all) {
                let msg = deadlock_message(&all, self.rank, place);
                let s = &mut all[self.rank];
                s.failure = Some(Error::Interpreter(msg));
                s.waiting[wg] = None;
                self.sync.wake.notify_all();
                return WaitEnd::Stopped;
            }
            all = self.sync.wake.wait(all).unwrap_or_else(|p| p.into_inner());
        }
    }

    /// Warpgroup `wg` is done (normally, with an error, or by a panic): the others may now be
    /// deadlocked.
    pub(crate) fn finish(&self, wg: usize, place: &Place) {
        let mut all = self.lock();
        let s = &mut all[self.rank];
        s.live = s.live.saturating_sub(1);
        s.waiting[wg] = None;
        s.release_program(&self.sync.wake);
        release_cluster(&mut all, &self.sync.wake);
        if all.iter().all(|s| s.failure.is_none()) && deadlocked(&all) {
            let msg = deadlock_message(&all, self.rank, place);
            all[self.rank].failure = Some(Error::Interpreter(msg));
        }
        self.sync.wake.notify_all();
    }

    /// Records a warpgroup's failure (the first one wins) and stops the others.
    pub(crate) fn fail(&self, err: Error) {
        let mut all = self.lock();
        let s = &mut all[self.rank];
        if s.failure.is_none() {
            s.failure = Some(err);
        }
        self.sync.wake.notify_all();
    }

    /// The program's failure, if any.
    pub(crate) fn failure(&self) -> Option<Error> {
        self.lock()[self.rank].failure.clone()
    }

    /// Whether any program of the cluster has failed (a semaphore wait then stops).
    pub(crate) fn cluster_failed(&self) -> bool {
        self.lock().iter().any(|s| s.failure.is_some())
    }

    /// Stops the cluster because the launch halted (another cluster failed) while one of its
    /// warpgroups waited on a semaphore, perhaps for that cluster. The stop is recorded as this
    /// program's failure, to stop the others, unless the cluster has already failed on its own.
    pub(crate) fn halt(&self) {
        let mut all = self.lock();
        if all.iter().all(|s| s.failure.is_none()) {
            let s = &mut all[self.rank];
            s.failure = Some(Error::Interpreter("halted: another cluster of the launch failed".into()));
            s.halted = true;
        }
        self.sync.wake.notify_all();
    }

    /// Whether the cluster stopped for another cluster's failure ([`ProgramState::halt`]): it has
    /// no error of its own to report.
    pub(crate) fn halted(&self) -> bool {
        self.lock().iter().any(|s| s.halted)
    }
}

/// Names every blocked warpgroup, the barrier and phase it waits for, and the barrier's state.
fn deadlock_message(all: &[SyncState], rank: usize, place: &Place) -> String {
    let s = &all[rank];
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
            Some(Blocked::Cluster { .. }) => {
                let live: usize = all.iter().map(|s| s.live).sum();
                parts.push(format!(
                    "warpgroup {wg} waits at the cluster-wide barrier of a `run_scoped` that allocates barriers ({} of \
                     {live} running warpgroup(s) of the cluster there; every program of the cluster must enter and \
                     leave such a scope)",
                    all[0].cluster.arrived
                ));
                continue;
            }
        };
        let w = Waiting { key, phase };
        let fresh = BarrierState::new(1, 0);
        let b = s.barriers.get(&w.key).unwrap_or(&fresh);
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
        if b.tx > 0 {
            part.push_str(&format!(
                " and waits for the bytes of {} more multicast cop(ies) from the cluster's programs (every program \
                 of the cluster must issue the same multicast copy)",
                b.tx
            ));
        }
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
    let peers = if all.len() > 1 { " (and so does every other program of its cluster)" } else { "" };
    format!(
        "deadlock in `{}`, program ({x}, {y}, {z}): every running warpgroup waits on a barrier that nothing \
         will complete{peers} ({finished} warpgroup(s) finished): {}",
        place.kernel,
        parts.join("; ")
    )
}

#[cfg(test)]
mod tests {
    use super::{Arrival, ProgramState};
    use std::sync::atomic::Ordering;

    #[test]
    fn a_multicast_phase_completes_when_every_program_delivered() {
        let states = ProgramState::cluster(2, 2, 1, None);
        states[0].init_barriers(0, 1, 1, 1);
        // Program 1's copy delivers its bytes before program 0 issues its own.
        let land = |v: f64| -> super::Landing { Box::new(move |smem| smem[0].store(v.to_bits(), Ordering::Relaxed)) };
        states[0].arrive((0, 0), Arrival::delivery(None, land(1.0)));
        states[0].arrive((0, 0), Arrival::expect(2));
        assert_eq!(completed(&states, 0, (0, 0)), 0, "program 0's own copy has not landed");
        assert!(f64::from_bits(states[0].smem[0].load(Ordering::Relaxed)).is_nan(), "no bytes before the phase");
        states[0].arrive((0, 0), Arrival::delivery(None, land(2.0)));
        assert_eq!(completed(&states, 0, (0, 0)), 1);
        assert_eq!(f64::from_bits(states[0].smem[0].load(Ordering::Relaxed)), 2.0);
    }

    fn completed(states: &[ProgramState], rank: usize, key: (usize, usize)) -> u64 {
        states[rank].lock()[rank].barriers.get(&key).map_or(0, |b| b.completed)
    }

    #[test]
    fn barriers_are_initialised_once_per_entry_of_their_scope() {
        let states = ProgramState::cluster(1, 0, 2, None);
        // The first warpgroup to enter initialises the barrier (two arrivals a phase).
        states[0].init_barriers(0, 1, 2, 1);
        states[0].arrive((0, 0), Arrival::arrive(None));
        states[0].arrive((0, 0), Arrival::arrive(None));
        assert_eq!(completed(&states, 0, (0, 0)), 1);
        // The second warpgroup's entry finds it initialised and leaves it as it is.
        states[0].init_barriers(0, 1, 2, 1);
        assert_eq!(completed(&states, 0, (0, 0)), 1);
        // The next entry of the scope starts it over.
        states[0].init_barriers(0, 1, 2, 2);
        assert_eq!(completed(&states, 0, (0, 0)), 0);
    }
}
