//! What holds at one point of a warpgroup's code on every path that reaches it: the asynchronous
//! operations surely still in flight, the register stores surely not yet committed, the barrier
//! arrivals surely made. A fact that holds on one path only is dropped where the paths meet
//! (`State::join`), so a fact is never a guess, and a check that reads one never reports what
//! depends on run-time data.

use super::value::{AccPlace, BarrierRef, Place, Value};

/// Counts of operations issued after a group, up to here: beyond this, "many".
const MANY: u32 = 16;

#[derive(Clone, Debug, PartialEq)]
pub struct State {
    /// The value of each frame slot.
    pub slots: Vec<Value>,
    /// TMA loads that no wait on their barrier has covered yet.
    pub loads: Vec<Load>,
    /// wgmma groups in flight (PTX: `wgmma.commit_group`, completed by `wgmma.wait_group`).
    pub wgmmas: Vec<Group<Wgmma>>,
    /// TMA stores whose reads of shared memory may be in flight (PTX: bulk groups, completed by
    /// `cp.async.bulk.wait_group.read`).
    pub stores: Vec<Group<Option<Place>>>,
    /// TMA stores whose writes to global memory may be in flight (the same bulk groups, completed
    /// by `cp.async.bulk.wait_group` without `.read`): another device's array for a store into a
    /// `remote(..)` tile (`publish`), `None` for this device's.
    pub writes: Vec<Group<Option<String>>>,
    /// Register stores to shared memory since the last `commit_smem()`.
    pub unfenced: Vec<(usize, Place)>,
    /// The barriers of the open scopes, each with its arrivals since this warpgroup last waited.
    pub phases: Vec<Phase>,
    /// Whether this warpgroup surely has not waited (on a barrier or a semaphore) since the
    /// program's last program-wide barrier: what it does now is ordered after nothing another
    /// warpgroup did there.
    pub unsynced: bool,
    /// That stretch between program-wide barriers (`Walker::region`), where every path agrees.
    pub region: Option<usize>,
}

/// A TMA load issued at `site` into `place`, completing on `barrier`.
#[derive(Clone, Debug, PartialEq)]
pub struct Load {
    pub site: usize,
    pub place: Place,
    pub barrier: BarrierRef,
}

/// An asynchronous group issued at `site`, and how many groups of its kind were issued after it:
/// at least `younger.0` and at most `younger.1` (`MANY` for "unbounded") over the paths.
#[derive(Clone, Debug, PartialEq)]
pub struct Group<T> {
    pub site: usize,
    pub what: T,
    pub younger: (u32, u32),
}

/// What one wgmma reads and writes.
#[derive(Clone, Debug, PartialEq)]
pub struct Wgmma {
    pub reads: Vec<Place>,
    pub writes: Option<AccPlace>,
}

/// A count that every path agrees on, or `None`.
pub type Count = Option<u32>;

/// One barrier of an open scope (`(allocation, index)`), as this warpgroup has used it.
#[derive(Clone, Debug, PartialEq)]
pub struct Phase {
    pub key: (usize, i64),
    /// Arrivals since this warpgroup's last wait on it (or since the scope began).
    pub arrivals: Count,
    /// Arrivals and waits since the scope began.
    pub total: Count,
    pub waits: Count,
}

pub fn add(c: Count, n: u32) -> Count {
    c.and_then(|c| c.checked_add(n)).filter(|&c| c < 1 << 20)
}

fn agree(a: Count, b: Count) -> Count {
    if a == b {
        a
    } else {
        None
    }
}

impl State {
    pub fn new(slots: usize) -> State {
        State {
            slots: vec![Value::Unknown; slots],
            loads: Vec::new(),
            wgmmas: Vec::new(),
            stores: Vec::new(),
            writes: Vec::new(),
            unfenced: Vec::new(),
            phases: Vec::new(),
            unsynced: false,
            region: None,
        }
    }

    /// What holds both here and on `other`'s path.
    pub fn join(&mut self, other: &State) {
        for (a, b) in self.slots.iter_mut().zip(&other.slots) {
            *a = std::mem::replace(a, Value::Unknown).join(b.clone());
        }
        self.loads.retain(|l| other.loads.contains(l));
        join_groups(&mut self.wgmmas, &other.wgmmas);
        join_groups(&mut self.stores, &other.stores);
        join_groups(&mut self.writes, &other.writes);
        self.unfenced.retain(|u| other.unfenced.contains(u));
        for p in &mut self.phases {
            match other.phases.iter().find(|q| q.key == p.key) {
                Some(q) => {
                    p.arrivals = agree(p.arrivals, q.arrivals);
                    p.total = agree(p.total, q.total);
                    p.waits = agree(p.waits, q.waits);
                }
                None => (p.arrivals, p.total, p.waits) = (None, None, None),
            }
        }
        self.unsynced &= other.unsynced;
        if self.region != other.region {
            self.region = None;
        }
    }

    /// Nothing known: what a loop whose facts do not settle leaves.
    pub fn forget(&mut self) {
        *self = State { phases: std::mem::take(&mut self.phases), ..State::new(self.slots.len()) };
        for p in &mut self.phases {
            (p.arrivals, p.total, p.waits) = (None, None, None);
        }
    }

    pub fn phase(&mut self, key: (usize, i64)) -> Option<&mut Phase> {
        self.phases.iter_mut().find(|p| p.key == key)
    }

    /// Forgets the counts of every barrier of `alloc` (an arrival or wait on one of them at a
    /// run-time index).
    pub fn blur_barriers(&mut self, alloc: usize) {
        for p in self.phases.iter_mut().filter(|p| p.key.0 == alloc) {
            (p.arrivals, p.total, p.waits) = (None, None, None);
        }
    }
}

/// The groups in flight on both paths, each with the range of younger groups of both.
fn join_groups<T: PartialEq>(mine: &mut Vec<Group<T>>, theirs: &[Group<T>]) {
    mine.retain_mut(|g| match theirs.iter().find(|h| h.site == g.site && h.what == g.what) {
        Some(h) => {
            g.younger = (g.younger.0.min(h.younger.0), g.younger.1.max(h.younger.1));
            true
        }
        None => false,
    });
}

/// A new group issued at `site`: every group in flight has one more younger than it. A group of
/// the same site still in flight (from an earlier turn of a loop) is dropped: it is older than
/// every group of the same site, which is all the check knows of it.
pub fn issue<T>(groups: &mut Vec<Group<T>>, site: usize, what: T) {
    groups.retain(|g| g.site != site);
    for g in groups.iter_mut() {
        g.younger = ((g.younger.0 + 1).min(MANY), (g.younger.1 + 1).min(MANY));
    }
    groups.push(Group { site, what, younger: (0, 0) });
}

/// A wait until at most `n` groups are in flight (`wgmma_wait(n)`, `wait_smem_to_gmem(n)`): the
/// `n` most recent stay. A group stays surely in flight only if fewer than `n` were issued after
/// it on every path.
pub fn wait<T>(groups: &mut Vec<Group<T>>, n: u32) {
    groups.retain(|g| g.younger.1 < n && g.younger.1 < MANY);
}
