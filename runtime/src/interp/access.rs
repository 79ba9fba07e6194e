//! What each memory access tells the race detector: a warpgroup's register loads and stores, and
//! the reads and writes of the asynchronous operations it issues, recorded in the shadow of the
//! memory they touch; and the accumulator reads that must wait for the wgmmas writing it.

use super::exec::Warpgroup;
use super::memory::{alloc_element, GlobalBox, SmemView};
use super::numeric::error;
use super::race::{race_message, Access, Actor, Clocks, MemoryName, Race, Shadow, What};
use super::value::AccRef;
use crate::Result;
use std::sync::Mutex;

/// An asynchronous operation's accesses: its unit's agent and number, and its issuer's clocks at
/// issue.
#[derive(Clone)]
pub(crate) struct Op {
    pub agent: u32,
    pub clock: u32,
    pub clocks: Clocks,
    pub site: Option<u32>,
    pub what: What,
}

impl Op {
    pub(crate) fn actor(&self, write: bool) -> Actor<'_> {
        Actor { access: Access::new(self.agent, self.clock, self.site, self.what), clocks: &self.clocks, write }
    }

    /// What the operation releases when it completes: its issuer's clocks and itself.
    pub(crate) fn completion(&self) -> Clocks {
        self.clocks.with(self.agent, self.clock)
    }
}

fn lock(shadow: &Mutex<Shadow>) -> std::sync::MutexGuard<'_, Shadow> {
    // A panic while holding the lock leaves a shadow that misses at most one access.
    shadow.lock().unwrap_or_else(|p| p.into_inner())
}

impl Warpgroup<'_> {
    /// This warpgroup's own access (`None` when the detector is off).
    pub(crate) fn me(&self, what: What, site: Option<u32>, write: bool) -> Option<Actor<'_>> {
        self.race.as_ref().map(|r| r.actor(what, site, write))
    }

    /// Records `actor`'s access to `view` in the shared memory of the cluster's program `rank`.
    pub(crate) fn record_smem(&self, rank: usize, view: &SmemView, actor: Option<&Actor>) -> Result<()> {
        let (Some(actor), Some(shadow)) = (actor, self.cluster[rank].shadow.as_ref()) else { return Ok(()) };
        let found = lock(shadow).access(view.cells(), actor);
        found.map_err(|race| {
            let alloc = &self.prog.allocs[view.alloc];
            let program = (self.device, self.program_of_rank(rank));
            let element = alloc_element(alloc, race.cell);
            self.race_error(&race, actor, &MemoryName::Shared { buffer: &alloc.name, element, program })
        })
    }

    /// Records `actor`'s access to a box of a global array (one the kernel writes).
    pub(crate) fn record_global(&self, area: &GlobalBox, actor: Option<&Actor>) -> Result<()> {
        let (Some(actor), Some(detector)) = (actor, self.launch.race.as_ref()) else { return Ok(()) };
        let g = self.global(area.param)?;
        let Some(shadow) = detector.global(area.param, g.data.len()) else { return Ok(()) };
        let found = lock(shadow).access(area.cells(g).into_iter(), actor);
        found.map_err(|race| {
            let mut flat = race.cell;
            let mut element = vec![0; g.shape.len()];
            for (i, &d) in element.iter_mut().zip(&g.shape).rev() {
                *i = flat % d.max(1);
                flat /= d.max(1);
            }
            let array = self.array_name(area.param);
            self.race_error(&race, actor, &MemoryName::Global { array: &array, element })
        })
    }

    fn race_error(&self, race: &Race, actor: &Actor, memory: &MemoryName) -> crate::Error {
        let Some(detector) = self.launch.race.as_ref() else { return error("internal: a race without a detector") };
        error(race_message(self.prog, &detector.agents, race, actor.access, actor.write, memory))
    }

    /// The grid coordinates of the cluster's program `rank`.
    fn program_of_rank(&self, rank: usize) -> [usize; 3] {
        let [cx, cy, _] = self.prog.cluster;
        let base = self.program;
        let mine = [self.rank % cx, self.rank / cx % cy, self.rank / (cx * cy)];
        let theirs = [rank % cx, rank / cx % cy, rank / (cx * cy)];
        [0, 1, 2].map(|d| base[d] - mine[d] + theirs[d])
    }

    /// An accumulator read or write (`what` it is, at `site`) must come after the `wgmma_wait`
    /// that covers every wgmma writing that part of it: the wgmma's result is in flight until then.
    pub(crate) fn check_acc(&self, acc: &AccRef, site: Option<u32>, write: bool) -> Result<()> {
        if self.race.is_none() {
            return Ok(());
        }
        let Some(i) = self.wgmmas.iter().position(|p| p.acc.overlaps(acc)) else { return Ok(()) };
        let pending = &self.wgmmas[i];
        let name = match acc.alloc {
            Some(a) => format!("accumulator `{}`", self.prog.allocs[a].name),
            None => "the `run_state` accumulator".into(),
        };
        let at = |s: Option<u32>| s.and_then(|s| self.prog.site_text(s)).unwrap_or_else(|| "an unknown place".into());
        let [x, y, z] = self.program;
        Err(error(format!(
            "data race on {name}: the {} at {} (program ({x}, {y}, {z}), warpgroup {}) {} it while the same \
             warpgroup's `wgmma` at {} may still write it (its result lands at the `wgmma_wait` that covers it). Call `wgmma_wait({})` before \
             the accumulator is {}",
            if write { "`.store()`" } else { "`.load()`" },
            at(site),
            self.wg,
            if write { "writes" } else { "reads" },
            at(pending.site),
            self.wgmmas.len() - i - 1,
            if write { "written" } else { "read" },
        )))
    }
}
