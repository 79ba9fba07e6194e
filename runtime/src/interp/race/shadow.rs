//! Shadow memory: for every byte of a program's shared memory and every element of a written
//! global array, the last write and the reads since, each stamped with its agent's clock (the
//! FastTrack algorithm: Flanagan and Freund, PLDI 2009). A new access races with a recorded one
//! when at least one of them writes and the newcomer's clocks have not heard of the other's.
//!
//! Atomic updates of global memory (`.atomic_add`, a reducing TMA store) are kept with the reads,
//! as accesses that do not conflict with each other: two of them never race, whatever their
//! order, but an atomic update races with a plain read or write that nothing orders with it.

use std::collections::HashMap;

use super::clock::Clocks;

/// What an access is, for the ordering rules and the messages.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum What {
    /// A register load: `x.load(..)`.
    RegLoad,
    /// A register store: `x.store(v)`.
    RegStore,
    /// `copy_gmem_to_smem`: reads global memory, writes shared memory.
    TmaLoad,
    /// `copy_smem_to_gmem`: reads shared memory, writes global memory.
    TmaStore,
    /// `copy_smem_to_peer`: reads this program's buffer, writes the peer's.
    PeerCopy,
    /// `wgmma`: reads its shared-memory operands.
    Wgmma,
    /// `tile.atomic_add(v)`: an atomic update of global memory.
    AtomicAdd,
    /// `copy_smem_to_gmem(.., reduce = ..)`'s update of global memory (its read of shared memory
    /// is a `TmaStore`'s).
    TmaReduce,
}

impl What {
    const ALL: [What; 8] = [
        What::RegLoad,
        What::RegStore,
        What::TmaLoad,
        What::TmaStore,
        What::PeerCopy,
        What::Wgmma,
        What::AtomicAdd,
        What::TmaReduce,
    ];

    /// Whether the access is an atomic update, which races with plain accesses only.
    pub(crate) fn is_atomic(self) -> bool {
        match self {
            What::AtomicAdd | What::TmaReduce => true,
            What::RegLoad | What::RegStore | What::TmaLoad | What::TmaStore | What::PeerCopy | What::Wgmma => false,
        }
    }

    /// Whether the access goes through the async proxy (TMA and wgmma), which sees register
    /// stores into shared memory only after a `commit_smem()`.
    pub(crate) fn is_async(self) -> bool {
        match self {
            What::RegLoad | What::RegStore | What::AtomicAdd => false,
            What::TmaLoad | What::TmaStore | What::PeerCopy | What::Wgmma | What::TmaReduce => true,
        }
    }

    /// The operation as the kernel writes it.
    pub(crate) fn op(self) -> &'static str {
        match self {
            What::RegLoad => "`.load()`",
            What::RegStore => "`.store()`",
            What::TmaLoad => "`copy_gmem_to_smem`",
            What::TmaStore => "`copy_smem_to_gmem`",
            What::PeerCopy => "`copy_smem_to_peer`",
            What::Wgmma => "`wgmma`",
            What::AtomicAdd => "`.atomic_add()`",
            What::TmaReduce => "`copy_smem_to_gmem(.., reduce = ..)`",
        }
    }
}

/// No site: an operation the program's source-location table does not list.
const NO_SITE: u32 = 0x00ff_ffff;

/// One access as the shadow keeps it: 12 bytes. `clock == 0` is no access.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub(crate) struct Access {
    pub agent: u32,
    pub clock: u32,
    /// The site (low 24 bits) and the `What` (high 8).
    site_what: u32,
}

impl Access {
    pub(crate) fn new(agent: u32, clock: u32, site: Option<u32>, what: What) -> Access {
        let site = site.filter(|&s| s < NO_SITE).unwrap_or(NO_SITE);
        Access { agent, clock, site_what: site | (what as u32) << 24 }
    }

    pub(crate) fn site(self) -> Option<u32> {
        Some(self.site_what & NO_SITE).filter(|&s| s != NO_SITE)
    }

    pub(crate) fn what(self) -> What {
        What::ALL[(self.site_what >> 24) as usize]
    }

    fn is_none(self) -> bool {
        self.clock == 0
    }
}

/// An access being made, with what its agent knows.
pub(crate) struct Actor<'a> {
    pub access: Access,
    pub clocks: &'a Clocks,
    pub write: bool,
}

/// A recorded access the newcomer is not ordered after.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Race {
    pub earlier: Access,
    pub earlier_write: bool,
    /// The cell (a byte of shared memory, an element of a global array).
    pub cell: usize,
    /// The newcomer knows of the earlier write through `vc` but not through `fenced`: a register
    /// store that no `commit_smem()` made visible to the async proxy.
    pub unfenced: bool,
}

/// One byte or element: its last write and up to two reads unordered with each other (more are
/// kept in `Shadow::more`).
#[derive(Clone, Copy, Default, PartialEq, Eq)]
struct Cell {
    write: Access,
    reads: [Access; 2],
}

/// The shadow of one memory.
pub(crate) struct Shadow {
    cells: Vec<Cell>,
    /// The reads beyond two of the cells that have more.
    more: HashMap<usize, Vec<Access>>,
    /// Whether the memory is reached through two proxies (shared memory: register accesses and
    /// TMA/wgmma), so that a register store orders before an async access only through a fence.
    proxies: bool,
}

/// What an actor knows of one agent, looked up once per agent in a bulk access.
struct Known<'a> {
    clocks: &'a Clocks,
    last: Option<(u32, u32, u32)>,
}

impl Known<'_> {
    /// `(vc, fenced)` entries of `agent`.
    fn of(&mut self, agent: u32) -> (u32, u32) {
        match self.last {
            Some((a, vc, fenced)) if a == agent => (vc, fenced),
            _ => {
                let (vc, fenced) = (self.clocks.vc.get(agent), self.clocks.fenced.get(agent));
                self.last = Some((agent, vc, fenced));
                (vc, fenced)
            }
        }
    }
}

impl Shadow {
    /// A shadow of `n` cells, none accessed; `proxies` for shared memory.
    pub(crate) fn new(n: usize, proxies: bool) -> Shadow {
        Shadow { cells: vec![Cell::default(); n], more: HashMap::new(), proxies }
    }

    /// Records `actor`'s access to `cells` (in the order the caller names elements); the first
    /// cell whose recorded access races with it is returned, and nothing after it is recorded.
    pub(crate) fn access(&mut self, cells: impl Iterator<Item = usize>, actor: &Actor) -> Result<(), Race> {
        let mut known = Known { clocks: actor.clocks, last: None };
        // The cells of a tile mostly share one history, and what an access does to a cell depends
        // only on the cell (while none has readers beyond two): the last cell's before and after.
        let mut memo: Option<(Cell, Cell)> = None;
        for c in cells {
            let Some(&cell) = self.cells.get(c) else { continue };
            if let Some((before, after)) = memo {
                if before == cell {
                    self.cells[c] = after;
                    continue;
                }
            }
            self.access_cell(c, cell, actor, &mut known)?;
            memo = self.more.is_empty().then(|| (cell, self.cells[c]));
        }
        Ok(())
    }

    /// [`Shadow::access`] of one cell, which holds `cell`.
    fn access_cell(&mut self, c: usize, cell: Cell, actor: &Actor, known: &mut Known) -> Result<(), Race> {
        let race =
            |earlier: Access, earlier_write: bool, unfenced: bool| Race { earlier, earlier_write, cell: c, unfenced };
        if let Some(unfenced) = self.unordered(cell.write, true, actor, known) {
            return Err(race(cell.write, true, unfenced));
        }
        if !actor.write {
            // A plain read conflicts with the atomic updates among the reads, an atomic update
            // with the plain reads.
            let atomic = actor.access.what().is_atomic();
            let more = if self.more.is_empty() { None } else { self.more.get(&c) };
            for &r in cell.reads.iter().chain(more.into_iter().flatten()) {
                if !r.is_none() && r.what().is_atomic() != atomic && self.unordered(r, false, actor, known).is_some() {
                    return Err(race(r, false, false));
                }
            }
            self.add_read(c, actor, known);
            return Ok(());
        }
        let more = if self.more.is_empty() { None } else { self.more.get(&c) };
        for &r in cell.reads.iter().chain(more.into_iter().flatten()) {
            if self.unordered(r, false, actor, known).is_some() {
                return Err(race(r, false, false));
            }
        }
        self.cells[c] = Cell { write: actor.access, reads: Default::default() };
        if !self.more.is_empty() {
            self.more.remove(&c);
        }
        Ok(())
    }

    /// `Some(unfenced)` when `earlier` (a write when `write`) is not ordered before `actor`.
    fn unordered(&self, earlier: Access, write: bool, actor: &Actor, known: &mut Known) -> Option<bool> {
        // No shortcut for the actor's own agent: a TMA copy or wgmma is ordered after an earlier
        // one of its unit only where its issuer has heard that the earlier one completed.
        if earlier.is_none() {
            return None;
        }
        let (vc, fenced) = known.of(earlier.agent);
        // A register store reaches an async-proxy read (a TMA store's, a wgmma's) only through a
        // fence (`commit_smem`). An async write after it (a TMA load into the buffer) is ordered
        // like any other write: the PTX ISA asks for the fence before async reads.
        let async_read = actor.access.what().is_async() && !actor.write;
        let fence = self.proxies && write && async_read && !earlier.what().is_async();
        let seen = if fence { fenced } else { vc };
        (earlier.clock > seen).then_some(fence && earlier.clock <= vc)
    }

    /// Adds a read, dropping the reads of its kind (plain or atomic) it is ordered after and the
    /// agent's own earlier ones of its kind (an access that conflicts with those and is ordered
    /// after this read is ordered after them too: clocks only grow, so checking against it checks
    /// against them; one of the other kind may conflict with them and not with it, so stays).
    fn add_read(&mut self, c: usize, actor: &Actor, known: &mut Known) {
        let me = actor.access;
        let mut cell = self.cells[c];
        let atomic = me.what().is_atomic();
        let before = |r: Access, known: &mut Known| {
            r.is_none() || (r.what().is_atomic() == atomic && (r.agent == me.agent || r.clock <= known.of(r.agent).0))
        };
        let mut placed = false;
        for slot in cell.reads.iter_mut() {
            if before(*slot, known) {
                *slot = if placed { Access::default() } else { me };
                placed = true;
            }
        }
        // Few cells ever have more than two unordered readers: skip the map while none has.
        let more = if self.more.is_empty() { None } else { self.more.get_mut(&c) };
        match (placed, more) {
            (true, Some(more)) => more.retain(|&r| !before(r, known)),
            (true, None) => {}
            (false, Some(more)) => {
                more.retain(|&r| !before(r, known));
                more.push(me);
            }
            (false, None) => {
                self.more.insert(c, vec![me]);
            }
        }
        self.cells[c] = cell;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn clocks(pairs: &[(u32, u32)]) -> Clocks {
        let mut c = Clocks::default();
        pairs.iter().for_each(|&(a, k)| c.vc.raise(a, k));
        c
    }

    fn act(shadow: &mut Shadow, agent: u32, clock: u32, what: What, write: bool, knows: &Clocks) -> Result<(), Race> {
        let actor = Actor { access: Access::new(agent, clock, Some(agent), what), clocks: knows, write };
        shadow.access(0..4, &actor)
    }

    #[test]
    fn unordered_writes_race_and_ordered_ones_do_not() {
        let mut s = Shadow::new(4, true);
        act(&mut s, 1, 1, What::RegStore, true, &clocks(&[(1, 1)])).unwrap();
        // Agent 2 heard of agent 1's clock 1: ordered.
        act(&mut s, 2, 1, What::RegLoad, false, &clocks(&[(1, 1), (2, 1)])).unwrap();
        // Agent 3 read concurrently with agent 2 (both after agent 1): two readers are kept.
        act(&mut s, 3, 1, What::RegLoad, false, &clocks(&[(1, 1), (3, 1)])).unwrap();
        // A writer that heard of agent 2 but not of agent 3 races with agent 3's read.
        let race = act(&mut s, 4, 1, What::RegStore, true, &clocks(&[(1, 1), (2, 1), (4, 1)])).unwrap_err();
        assert_eq!((race.earlier.agent, race.earlier_write, race.earlier.site()), (3, false, Some(3)));
        act(&mut s, 4, 1, What::RegStore, true, &clocks(&[(1, 1), (2, 1), (3, 1), (4, 1)])).unwrap();
    }

    #[test]
    fn a_register_store_reaches_the_async_proxy_only_through_a_fence() {
        let mut s = Shadow::new(4, true);
        act(&mut s, 1, 1, What::RegStore, true, &clocks(&[(1, 1)])).unwrap();
        let unfenced = clocks(&[(1, 1), (2, 1)]);
        let race = act(&mut s, 2, 1, What::TmaStore, false, &unfenced).unwrap_err();
        assert!(race.unfenced);
        let mut fenced = unfenced.clone();
        fenced.fenced.raise(1, 1);
        act(&mut s, 2, 1, What::TmaStore, false, &fenced).unwrap();
        // Global memory has one proxy: no fence needed.
        let mut g = Shadow::new(4, false);
        act(&mut g, 1, 1, What::RegStore, true, &clocks(&[(1, 1)])).unwrap();
        act(&mut g, 2, 1, What::TmaLoad, false, &unfenced).unwrap();
    }

    #[test]
    fn atomic_updates_race_with_plain_accesses_only() {
        let mut g = Shadow::new(4, false);
        // Two programs' atomic adds, unordered: no race.
        act(&mut g, 1, 1, What::AtomicAdd, false, &clocks(&[(1, 1)])).unwrap();
        act(&mut g, 2, 1, What::TmaReduce, false, &clocks(&[(2, 1)])).unwrap();
        // A plain read unordered with agent 2's update races with it.
        let race = act(&mut g, 3, 1, What::RegLoad, false, &clocks(&[(1, 1), (3, 1)])).unwrap_err();
        assert_eq!((race.earlier.agent, race.earlier.what()), (2, What::TmaReduce));
        // Ordered after both, it reads; a later atomic add unordered with that read races.
        act(&mut g, 3, 1, What::RegLoad, false, &clocks(&[(1, 1), (2, 1), (3, 1)])).unwrap();
        let race = act(&mut g, 4, 1, What::AtomicAdd, false, &clocks(&[(1, 1), (2, 1), (4, 1)])).unwrap_err();
        assert_eq!((race.earlier.agent, race.earlier.what()), (3, What::RegLoad));
        // A plain store unordered with an atomic add races with it.
        let mut h = Shadow::new(4, false);
        act(&mut h, 1, 1, What::AtomicAdd, false, &clocks(&[(1, 1)])).unwrap();
        let race = act(&mut h, 2, 1, What::RegStore, true, &clocks(&[(2, 1)])).unwrap_err();
        assert_eq!(race.earlier.what(), What::AtomicAdd);
        // An agent's plain read does not hide its own earlier atomic add from another's read.
        let mut k = Shadow::new(4, false);
        act(&mut k, 1, 1, What::AtomicAdd, false, &clocks(&[(1, 1)])).unwrap();
        act(&mut k, 1, 2, What::RegLoad, false, &clocks(&[(1, 2)])).unwrap();
        assert!(act(&mut k, 2, 1, What::RegLoad, false, &clocks(&[(2, 1)])).is_err());
    }

    #[test]
    fn many_concurrent_readers_are_all_checked() {
        let mut s = Shadow::new(4, false);
        for agent in 1..=5 {
            act(&mut s, agent, 1, What::Wgmma, false, &clocks(&[(agent, 1)])).unwrap();
        }
        let all: Vec<(u32, u32)> = (1..=5).map(|a| (a, 1)).collect();
        let mut partial = all.clone();
        partial.retain(|&(a, _)| a != 5);
        partial.push((9, 1));
        assert_eq!(act(&mut s, 9, 1, What::TmaLoad, true, &clocks(&partial)).unwrap_err().earlier.agent, 5);
        let mut every = all;
        every.push((9, 1));
        act(&mut s, 9, 1, What::TmaLoad, true, &clocks(&every)).unwrap();
    }
}
