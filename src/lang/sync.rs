//! Synchronization: mbarriers in shared memory, and semaphores in global memory between the
//! programs of a launch.

use super::copy_type;
use super::memory::GmemMut;
use super::sealed::{Never, Sealed};
use std::ops::Range;

/// An mbarrier in shared memory, or an array of `COUNT` of them, each completing a phase after
/// `ARRIVALS` arrivals: `bar: Barrier`, `bar: Barrier<2>`, `full: Barrier<1, STAGES>`.
///
/// # Forms
///
/// - `Barrier` (one arrival per phase), `Barrier<arrivals>`: one barrier.
/// - `Barrier<arrivals, count>`: an array of `count` barriers, each picked with
///   [`.at(i)`](Barrier::at) (also for a count of 1).
/// - Allocated by [`run_scoped`](super::run_scoped) (collectively in a kernel of several
///   warpgroups). A [`Pipeline`](super::Pipeline) allocates two arrays of them.
///
/// # Semantics
///
/// A phase completes after `arrivals` arrivals: each [`copy_gmem_to_smem`](super::copy_gmem_to_smem)
/// on the barrier is one (and its bytes must land too), each [`barrier_arrive`] is one per calling
/// warpgroup, each [`copy_smem_to_peer`](super::copy_smem_to_peer) one on the peer's barrier.
/// [`barrier_wait`] waits for the phase of the calling warpgroup's parity bit, then flips the bit,
/// so a barrier is used again phase after phase (a pipeline waits on `full.at(s)` and
/// `empty.at(s)` round after round).
///
/// # Rules
///
/// `arrivals` and `count` are compile-time integers from 1 to 2<sup>20</sup> - 1 (mbarrier counts
/// are 20-bit).
///
/// # PTX
///
/// 8 bytes of shared memory each, `mbarrier.init.shared::cta.b64` at the scope's start (see
/// [`run_scoped`](super::run_scoped)), `mbarrier.inval` at its end.
///
/// # Interpreter
///
/// A counter of arrivals and a phase per barrier.
///
/// # Examples
///
/// [`Smem::at`](super::Smem::at)'s uses an array of two, each completed by a TMA copy;
/// [`run_scoped`](super::run_scoped)'s one that a warpgroup arrives on.
pub struct Barrier<const ARRIVALS: u32 = 1, const COUNT: u32 = 1> {
    pub(super) never: Never,
}

copy_type!(Barrier<; const ARRIVALS: u32, const COUNT: u32>);
impl<const ARRIVALS: u32, const COUNT: u32> Sealed for Barrier<ARRIVALS, COUNT> {}

impl<const ARRIVALS: u32, const COUNT: u32> Barrier<ARRIVALS, COUNT> {
    /// Barrier `i` of an array: `full.at(s)`.
    ///
    /// # Rules
    ///
    /// The barrier is an array (`Barrier<arrivals, count>`); `i` is an `i32` or `u32`, a
    /// compile-time one in `0..count`.
    ///
    /// # PTX
    ///
    /// Address arithmetic: 8 bytes a barrier.
    ///
    /// # Interpreter
    ///
    /// The `i`-th barrier.
    pub fn at(self, i: i32) -> Barrier<ARRIVALS> {
        match self.never {}
    }
}

/// One arrival of this warpgroup on `bar`, after every thread of the warpgroup got there: what
/// releases a buffer to a producer, or hands stored values to another warpgroup.
///
/// # Forms
///
/// - `barrier_arrive(bar)`.
/// - `barrier_arrive(bar, cluster = true)`, in a kernel with clusters: one arrival on the barrier
///   at the same place in every program of the cluster (declare `Barrier<arrivals>` counting the
///   arrivals of all of them). It is what makes a multicast destination reusable: a program may
///   multicast into a buffer only after every program that reads it has released it.
///
/// # Rules
///
/// `bar` is one barrier (`bars.at(i)` of an array); `cluster = true` needs a cluster of two or more
/// programs.
///
/// # PTX
///
/// `bar.sync` over the warpgroup, then `mbarrier.arrive.shared::cta.b64` by one thread (a release:
/// the warpgroup's shared-memory stores before it are seen after the phase's `barrier_wait`).
/// With `cluster = true`, per program of the cluster, `mapa.shared::cluster.u32` and
/// `mbarrier.arrive.shared::cluster.b64` by one thread.
///
/// # Interpreter
///
/// One arrival (on the barrier of every program of the cluster, for `cluster = true`).
///
/// # Example
///
/// [`run_scoped`](super::run_scoped) hands a buffer from one warpgroup to another.
pub fn barrier_arrive<const ARRIVALS: u32>(bar: Barrier<ARRIVALS>) {
    match bar.never {}
}

/// Waits until the barrier's current phase (as this warpgroup counts phases) completes, then
/// moves on to the next.
///
/// Each warpgroup keeps a parity bit per barrier: the wait is for the phase of that parity, after
/// which the bit flips. A warpgroup that waits on every phase of a barrier therefore waits for each
/// in turn.
///
/// # Rules
///
/// `bar` is one barrier (`bars.at(i)` of an array).
///
/// # PTX
///
/// A `mbarrier.try_wait.parity.shared::cta.b64` loop (with a suspend-time hint, so that waiting
/// warps sleep instead of spinning) on the warpgroup's parity bit, which then flips; every thread
/// waits.
///
/// # Interpreter
///
/// Blocks the warpgroup's host thread until the phase completes; a wait that can never end (no
/// warpgroup of the launch can make progress) is an
/// [`Error::Interpreter`](crate::Error::Interpreter) naming the barrier.
///
/// # Example
///
/// [`run_scoped`](super::run_scoped)'s: a warpgroup waits for the other's arrival.
pub fn barrier_wait<const ARRIVALS: u32>(bar: Barrier<ARRIVALS>) {
    match bar.never {}
}

/// What [`semaphore_signal`] takes as the semaphores to signal: one index (`i32` or `u32`), or a
/// half-open range of them, `i..end`.
pub trait SemaphoreIndex: Sealed {}

impl Sealed for Range<i32> {}
impl Sealed for Range<u32> {}
impl SemaphoreIndex for i32 {}
impl SemaphoreIndex for u32 {}
impl SemaphoreIndex for Range<i32> {}
impl SemaphoreIndex for Range<u32> {}

/// Adds 1 (or `n`) to counter `i` of the semaphore array `sems`, once every register store to
/// global memory that the warpgroup made before it is visible to a program that then waits on
/// the counter. Like Pallas's `pl.semaphore_signal`.
///
/// # Forms
///
/// - `semaphore_signal(sems, i)`, `semaphore_signal(sems, i, n)`: a count `n` other than 1 (a
///   32-bit integer).
/// - `semaphore_signal(sems, i..end)`, `semaphore_signal(sems, i..end, n)`: each counter of the
///   range receives `n`, after one release for all of them (a fence, then relaxed adds), where a
///   signal per counter releases each time and each release waits for the adds before it (about
///   0.2 µs a counter on the H200).
///
/// # Semantics
///
/// A semaphore is a `u32` counter in a kernel parameter `sems: GmemMut<u32, N>`, which the
/// programs of one launch hand work to each other through ([`semaphore_wait`] takes from it). In
/// a kernel of several devices, a `#[peers]` array's counters are signalled across devices:
/// `semaphore_signal(remote(sems, rank), i)` adds to device `rank`'s counter `i`, a release of
/// system scope that publishes to that device what the warpgroup wrote into its memory before (see
/// [`devices`](super::devices)).
/// Signals are per warpgroup, like [`barrier_arrive`](super::barrier_arrive): each warpgroup that
/// executes one adds `n`. A signal orders the warpgroup's register stores
/// ([`Tile::store`](super::Tile::store)) and atomic adds, and its TMA stores
/// ([`copy_smem_to_gmem`](super::copy_smem_to_gmem)), which are asynchronous, once a
/// `wait_smem_to_gmem(n, complete = true)` has completed them. Signals and waits that balance leave every counter as
/// it was, so the host zeroes the array once (`DeviceTensor::zeros`) and passes it to launch after
/// launch.
///
/// # Rules
///
/// - `sems` is a kernel parameter declared `GmemMut<u32, N>` itself (1-D, `u32`, written; not a
///   tile of it), or `remote(sems, rank)` of a `#[peers]` one.
/// - The index (and a range's end) is an `i32` or `u32`; a constant one lies in the array (a
///   range's end may be its length), and a range ends after it starts.
/// - The count is an `i32` or `u32`; a constant count is at least 1.
///
/// # PTX
///
/// `bar.sync` over the warpgroup, then by one thread `red.release.gpu.global.add.u32` of `n` at
/// `sems + 4 * i`; for a range, one `fence.acq_rel.gpu` and a `red.relaxed.gpu.global.add.u32` to
/// each counter. On a `#[peers]` array (its own counters or another device's) every scope is
/// `.sys`. An index outside the array does nothing.
///
/// # Interpreter
///
/// Adds `n` to the counter (a release); an index outside the array is an
/// [`Error::Interpreter`](crate::Error::Interpreter).
///
/// # Example
///
/// ```rust
/// use tessel::prelude::*;
///
/// /// A running sum down the rows of tiles: program p waits for program p - 1's tile, adds it to
/// /// its own, stores the result and signals program p + 1.
/// #[kernel(grid = (S))]
/// fn prefix(x: GmemMut<f32, R, 64>, sems: GmemMut<u32, S>) {
///     let p = program_id(0);
///     let mut v = x.tile([p, 0], [64, 64]).load(Layout::Strided);
///     if p > 0 {
///         semaphore_wait(sems, p - 1);
///         v = v + x.tile([p - 1, 0], [64, 64]).load(Layout::Strided);
///     }
///     x.tile([p, 0]).store(v);
///     semaphore_signal(sems, p);
/// }
///
/// fn main() -> tessel::Result<()> {
///     let mut x = HostTensor::from_fn([4 * 64, 64], |_| 1.0)?;
///     let mut sems = HostTensor::<u32>::zeros([4])?;
///     prefix::interpret(&mut x, &mut sems)?;
///     assert_eq!(x.get(&[3 * 64 + 5, 9]), Some(4.0));
///     Ok(())
/// }
/// ```
pub fn semaphore_signal<I: SemaphoreIndex, S>(sems: GmemMut<u32, S>, i: I) {
    match sems.never {}
}

/// Waits until counter `i` of the semaphore array `sems` holds at least 1 (or `n`), then takes it
/// from the counter; the warpgroup's later loads see what the signalling warpgroups stored before
/// their signals. Like Pallas's `pl.semaphore_wait`.
///
/// # Forms
///
/// `semaphore_wait(sems, i)`, `semaphore_wait(sems, i, n)`: one counter (not a range), a count
/// `n` other than 1.
///
/// # Rules
///
/// - As for [`semaphore_signal`]: `sems` a `GmemMut<u32, N>` parameter, `i` and `n` 32-bit
///   integers, a constant `n` at least 1. A wait is on this device's counters: on a `#[peers]`
///   array, `sems` itself, never `remote(sems, rank)` (T0148).
/// - Waits are per warpgroup: each warpgroup that executes one takes `n`.
/// - A program may wait only for programs that can run while it waits: the GPU does not promise
///   that every program of a grid is resident at once, and the interpreter promises that every
///   lower-numbered cluster (numbered x fastest, like `cluster_rank()`) has started when a
///   program runs. So a program waits for signals from its own cluster and from programs of lower
///   index; or from the others of a run of consecutive programs that wait on each other, 132
///   programs or fewer (the split-K kernels' tiles): the interpreter runs as many at once for a
///   kernel that waits on semaphores, and the GPU runs them together when the grid fits in its SMs
///   (one such program each) or, taking programs in order, as the runs before them finish.
///
/// # PTX
///
/// One thread polls with `ld.acquire.gpu.global.u32` (and `nanosleep.u32`) until the counter holds
/// `n`, takes it with `atom.acquire.gpu.global.cas.b32` (polling again if it lost a race), then
/// `bar.sync` over the warpgroup; on a `#[peers]` array, `ld.acquire.sys` and `atom.acquire.sys`.
/// An index outside the array does nothing.
///
/// # Interpreter
///
/// Polls until the counter holds `n`, then takes it (an acquire). A wait during which no program
/// of the launch makes progress for 10 s (`TESSEL_SEMAPHORE_WAIT_MS`), or an index outside the
/// array, is an [`Error::Interpreter`](crate::Error::Interpreter).
///
/// # Example
///
/// [`semaphore_signal`]'s.
pub fn semaphore_wait<S>(sems: GmemMut<u32, S>, i: i32) {
    match sems.never {}
}
