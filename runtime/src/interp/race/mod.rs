//! The race detector: happens-before between every access to shared and global memory, by vector
//! clocks, so that two accesses that nothing orders (at least one a write) are an error naming
//! both, whichever way the host threads happened to interleave them.
//!
//! **Agents.** Each warpgroup of each program (of each device, for a kernel of several) is an
//! agent, and so is each asynchronous unit that works for it: the unit that runs its wgmmas, the
//! one that runs its TMA stores' reads of shared memory, the one that runs their writes of global
//! memory, and one per
//! (barrier, destination program) that runs its copies arriving on that barrier ([`Agents`]). An
//! agent's clock counts its steps; its [`Clocks`] say which steps of every agent it has heard of.
//! A warpgroup's accesses are stamped with its own clock; an asynchronous operation's with its
//! unit's (the operation's number), and carry its issuer's clocks at issue.
//!
//! **Ordering.** Release and acquire move clocks: `barrier_arrive` and a copy's completion join
//! the arriving agent's clocks into the barrier's phase, and a `barrier_wait` that sees the phase
//! complete joins them into the waiter; the program- and cluster-wide barriers of `run_scoped`
//! join every participant's into every participant's; `semaphore_signal` joins the signaller's
//! into the counter's, and `semaphore_wait` the counter's into the waiter's. A wgmma completes at
//! the `wgmma_wait` that covers it, a TMA store's read of its source at the `wait_smem_to_gmem`
//! that covers it and its write of its destination at the `wait_smem_to_gmem(n, complete = true)`
//! that covers it (each at some point before), a TMA load or peer copy
//! when the phase it arrives in completes. `commit_smem()` makes the warpgroup's register stores
//! into shared memory visible to the async proxy's reads ([`Clocks::fenced`]).
//!
//! **Shadow memory** ([`shadow`]) keeps, per byte of each program's shared memory and per element
//! of each `GmemMut` array, the last write and the unordered reads since. `Gmem` arrays are never
//! written, so reads of them cannot race and are not recorded; semaphore counters are atomics.
//!
//! **Switch.** On by default; `TESSEL_RACE_CHECK=0` turns it off for the process, and
//! [`with_race_check`] for the `interpret` calls of one closure on one thread.

mod clock;
mod report;
mod shadow;

use std::cell::Cell;
use std::collections::HashMap;
use std::env::{self, VarError};
use std::sync::{Mutex, OnceLock};

use tessel_ir::memory::AllocKind;
use tessel_ir::program::{ParamKind, Program};

pub(crate) use clock::Clocks;
pub(crate) use report::{race_message, MemoryName};
pub(crate) use shadow::{Access, Actor, Race, Shadow, What};

use super::numeric::error;
use crate::Result;

/// The environment variable that turns the race detector off (`0`) or on (`1`).
pub const RACE_CHECK_VAR: &str = "TESSEL_RACE_CHECK";

thread_local! {
    /// [`with_race_check`]'s setting on this thread, over the environment's.
    static OVERRIDE: Cell<Option<bool>> = const { Cell::new(None) };
}

/// Runs `f` with the interpreter's race detector on or off for every `interpret` call `f` makes
/// on this thread, whatever `TESSEL_RACE_CHECK` says; the setting before is restored after
/// (also when `f` panics).
///
/// The detector is on by default; off, the interpreter runs about [the cost stated in the
/// `interp` module](crate::interp#races) faster and reports no races (a kernel with a race then
/// computes what the GPU might: an operand read before its copy lands reads the old contents).
///
/// ```no_run
/// # fn run() -> tessel_runtime::Result<()> { Ok(()) }
/// // Time a kernel in the interpreter without the detector's cost:
/// tessel_runtime::interp::with_race_check(false, run)?;
/// # Ok::<(), tessel_runtime::Error>(())
/// ```
pub fn with_race_check<R>(on: bool, f: impl FnOnce() -> R) -> R {
    struct Restore(Option<bool>);
    impl Drop for Restore {
        fn drop(&mut self) {
            OVERRIDE.with(|o| o.set(self.0));
        }
    }
    let _restore = Restore(OVERRIDE.with(|o| o.replace(Some(on))));
    f()
}

/// Whether this launch checks for races: [`with_race_check`]'s setting, else
/// [`RACE_CHECK_VAR`], else on. A value other than `0` or `1` is an error.
pub(crate) fn enabled() -> Result<bool> {
    if let Some(on) = OVERRIDE.with(Cell::get) {
        return Ok(on);
    }
    let text = match env::var(RACE_CHECK_VAR) {
        Err(VarError::NotPresent) => return Ok(true),
        Ok(text) => text,
        Err(VarError::NotUnicode(text)) => text.to_string_lossy().into_owned(),
    };
    match text.trim() {
        "1" => Ok(true),
        "0" => Ok(false),
        _ => Err(error(format!("{RACE_CHECK_VAR}={text:?}: the race detector's switch must be 0 (off) or 1 (on)"))),
    }
}

/// What an agent does for its warpgroup.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Unit {
    /// The warpgroup itself.
    Warpgroup,
    /// The unit that runs its wgmmas, in order.
    Wgmma,
    /// The unit that runs its TMA stores' reads of shared memory, in order.
    Stores,
    /// The unit that runs its TMA stores' writes of global memory, in order (numbered as the
    /// stores are).
    StoreWrites,
    /// The unit that runs its copies (TMA loads, peer copies) arriving on barrier slot `slot` of
    /// the program of cluster rank `rank`: they complete in the order they arrive.
    Copies { slot: u32, rank: u32 },
}

/// The agent numbering of a launch: per warpgroup of every program of every device, [`Unit`]s
/// `0..per_wg`.
#[derive(Clone, Debug)]
pub(crate) struct Agents {
    grid: [usize; 3],
    devices: usize,
    warpgroups: u32,
    cluster: u32,
    /// Barrier slots: one per barrier of every barrier allocation.
    slots: u32,
    /// The first slot of each allocation (of barrier allocations; 0 for the others).
    first_slot: Vec<u32>,
}

impl Agents {
    fn new(prog: &Program, grid: [usize; 3], devices: usize) -> Result<Agents> {
        let mut first_slot = Vec::with_capacity(prog.allocs.len());
        let mut slots = 0u32;
        for a in &prog.allocs {
            first_slot.push(slots);
            if let AllocKind::Barrier { count, .. } = a.kind {
                slots += count;
            }
        }
        let (warpgroups, cluster) = (prog.warpgroups as u32, prog.cluster_size() as u32);
        let agents = Agents { grid, devices, warpgroups, cluster, slots, first_slot };
        let programs = grid.iter().product::<usize>() as u128 * devices as u128;
        let total = programs * u128::from(agents.warpgroups) * u128::from(agents.per_wg());
        if total >= u128::from(u32::MAX) {
            return Err(error(format!(
                "the race detector numbers {total} agents for this grid, more than it can; run it with \
                 {RACE_CHECK_VAR}=0"
            )));
        }
        Ok(agents)
    }

    fn per_wg(&self) -> u32 {
        4 + self.slots * self.cluster
    }

    /// The agent of `unit` of warpgroup `wg` of the program at `program` of device `device`.
    pub(crate) fn id(&self, (device, program): (usize, [usize; 3]), wg: usize, unit: Unit) -> u32 {
        let [gx, gy, gz] = self.grid;
        let linear = (program[0] + gx * (program[1] + gy * (program[2] + gz * device))) as u32;
        let unit = match unit {
            Unit::Warpgroup => 0,
            Unit::Wgmma => 1,
            Unit::Stores => 2,
            Unit::StoreWrites => 3,
            Unit::Copies { slot, rank } => 4 + slot * self.cluster + rank,
        };
        (linear * self.warpgroups + wg as u32) * self.per_wg() + unit
    }

    /// Whether the launch runs on several devices (messages then name the device).
    pub(crate) fn on_group(&self) -> bool {
        self.devices > 1
    }

    /// The barrier slot of barrier `index` of allocation `alloc`.
    pub(crate) fn slot(&self, alloc: usize, index: usize) -> u32 {
        self.first_slot.get(alloc).copied().unwrap_or(0) + index as u32
    }

    /// The device and program, warpgroup and unit of an agent.
    pub(crate) fn decode(&self, agent: u32) -> ((usize, [usize; 3]), usize, Unit) {
        let per = self.per_wg();
        let (wgl, unit) = (agent / per, agent % per);
        let (linear, wg) = ((wgl / self.warpgroups) as usize, (wgl % self.warpgroups) as usize);
        let [gx, gy, gz] = self.grid;
        let program = [linear % gx, linear / gx % gy, linear / (gx * gy) % gz];
        let device = linear / (gx * gy * gz);
        let unit = match unit {
            0 => Unit::Warpgroup,
            1 => Unit::Wgmma,
            2 => Unit::Stores,
            3 => Unit::StoreWrites,
            u => Unit::Copies { slot: (u - 4) / self.cluster, rank: (u - 4) % self.cluster },
        };
        ((device, program), wg, unit)
    }
}

/// The detector's state shared by the whole launch.
pub(crate) struct Detector {
    pub agents: Agents,
    /// The shadow of each buffer the kernel writes (a `GmemMut` parameter of a device, numbered as
    /// `Launch::params`), made at its first access; `None` for the others.
    globals: Vec<Option<OnceLock<Mutex<Shadow>>>>,
    /// What each semaphore counter's signals released: (buffer, index).
    semaphores: Mutex<HashMap<(usize, usize), Clocks>>,
}

impl std::fmt::Debug for Detector {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Detector").field("agents", &self.agents).finish_non_exhaustive()
    }
}

impl Detector {
    /// The detector for a launch of `prog` over `grid` on `devices` devices, when [`enabled`].
    pub(crate) fn for_launch(prog: &Program, grid: [usize; 3], devices: usize) -> Result<Option<Detector>> {
        if !enabled()? {
            return Ok(None);
        }
        let written = |p: &tessel_ir::program::ParamInfo| matches!(p.kind, ParamKind::Gmem { mutable: true, .. });
        let globals = (0..devices).flat_map(|_| prog.params.iter().map(|p| written(p).then(OnceLock::new))).collect();
        Ok(Some(Detector { agents: Agents::new(prog, grid, devices)?, globals, semaphores: Mutex::default() }))
    }

    /// The shadow of parameter `param` of `elements` elements, or `None` for a parameter the
    /// kernel never writes.
    pub(crate) fn global(&self, param: usize, elements: usize) -> Option<&Mutex<Shadow>> {
        let cell = self.globals.get(param)?.as_ref()?;
        Some(cell.get_or_init(|| Mutex::new(Shadow::new(elements, false))))
    }

    /// `semaphore_signal` on counter `index` of `param`: the counter releases `clocks`.
    pub(crate) fn signal(&self, param: usize, index: usize, clocks: &Clocks) {
        let mut all = self.semaphores.lock().unwrap_or_else(|p| p.into_inner());
        all.entry((param, index)).or_default().join(clocks);
    }

    /// `semaphore_wait` on counter `index` of `param` took its count: `clocks` acquire what the
    /// counter's signals released.
    pub(crate) fn acquire(&self, param: usize, index: usize, clocks: &mut Clocks) {
        let all = self.semaphores.lock().unwrap_or_else(|p| p.into_inner());
        if let Some(released) = all.get(&(param, index)) {
            clocks.join(released);
        }
    }
}

/// One warpgroup's agents and clocks.
#[derive(Debug)]
pub(crate) struct WgClocks {
    /// The warpgroup's agent.
    pub me: u32,
    /// Its current step.
    pub clock: u32,
    pub clocks: Clocks,
    pub wgmma: u32,
    pub stores: u32,
    pub store_writes: u32,
    /// TMA stores issued (the stores units' clock of the latest).
    pub stores_issued: u32,
    /// Copies issued by each of the warpgroup's `Unit::Copies` agents.
    copies: HashMap<u32, u32>,
}

impl WgClocks {
    pub(crate) fn new(agents: &Agents, program: (usize, [usize; 3]), wg: usize) -> WgClocks {
        let me = agents.id(program, wg, Unit::Warpgroup);
        let mut clocks = Clocks::default();
        clocks.vc.raise(me, 1);
        WgClocks {
            me,
            clock: 1,
            clocks,
            wgmma: agents.id(program, wg, Unit::Wgmma),
            stores: agents.id(program, wg, Unit::Stores),
            store_writes: agents.id(program, wg, Unit::StoreWrites),
            stores_issued: 0,
            copies: HashMap::new(),
        }
    }

    /// The warpgroup's next step: what it does from now on is not known to those it released to.
    pub(crate) fn tick(&mut self) {
        self.clock += 1;
        self.clocks.vc.raise(self.me, self.clock);
    }

    /// An access by the warpgroup itself.
    pub(crate) fn actor(&self, what: What, site: Option<u32>, write: bool) -> Actor<'_> {
        Actor { access: Access::new(self.me, self.clock, site, what), clocks: &self.clocks, write }
    }

    /// The number of the next copy of the warpgroup's unit `agent` (`Unit::Copies`).
    pub(crate) fn next_copy(&mut self, agent: u32) -> u32 {
        let n = self.copies.entry(agent).or_insert(0);
        *n += 1;
        *n
    }

    /// `commit_smem()`: the warpgroup's register stores so far reach the async proxy.
    pub(crate) fn fence(&mut self) {
        self.clocks.fenced = self.clocks.vc.clone();
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn with_race_check_overrides_the_environment_and_restores_its_setting() {
        with_race_check(false, || {
            assert!(!enabled().unwrap());
            with_race_check(true, || assert!(enabled().unwrap()));
            assert!(!enabled().unwrap());
            let _ = std::panic::catch_unwind(|| with_race_check(true, || panic!("inside")));
            assert!(!enabled().unwrap(), "restored after a panic");
        });
        assert_eq!(OVERRIDE.with(Cell::get), None);
    }

    #[test]
    fn agent_ids_decode_to_their_program_warpgroup_and_unit() {
        let agents =
            Agents { grid: [3, 2, 2], devices: 2, warpgroups: 3, cluster: 2, slots: 4, first_slot: vec![0, 0, 1] };
        let units = [Unit::Warpgroup, Unit::Wgmma, Unit::Stores, Unit::StoreWrites, Unit::Copies { slot: 3, rank: 1 }];
        for program in [[0, 0, 0], [2, 1, 0], [1, 0, 1], [2, 1, 1]] {
            for device in 0..2 {
                for wg in 0..3 {
                    for unit in units {
                        let at = (device, program);
                        assert_eq!(agents.decode(agents.id(at, wg, unit)), (at, wg, unit));
                    }
                }
            }
        }
    }
}
