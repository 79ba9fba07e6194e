//! One mbarrier object: its phases, the arrivals and copies each phase expects, the bytes of the
//! copies that land when their phase completes, and what the phase's arrivals release to its
//! waiters (the race detector's clocks). `sync.rs` keeps the barriers of a cluster under its lock.

use std::sync::atomic::AtomicU64;

use super::race::Clocks;

/// The bytes of a copy into a program's shared memory, written when the phase the copy arrives in
/// completes (the bytes of a TMA load land before its barrier's phase completes, and a wait that
/// sees the phase complete sees them; before, the buffer holds what it held).
pub(crate) type Landing = Box<dyn FnOnce(&[AtomicU64]) + Send>;

/// What one arrival brings a barrier.
pub(crate) struct Arrival {
    /// Arrivals it counts (0 for a delivery of bytes alone).
    count: u32,
    /// Copies whose bytes the phase must see land before it completes (`expect_tx`).
    expect: u32,
    /// Copies whose bytes land with it (`complete_tx`).
    deliver: u32,
    /// What the arriving agent releases, when the race detector runs.
    clocks: Option<Clocks>,
    landing: Option<Landing>,
}

impl Arrival {
    /// `barrier_arrive`: one arrival, releasing the warpgroup's clocks.
    pub(crate) fn arrive(clocks: Option<Clocks>) -> Arrival {
        Arrival { count: 1, expect: 0, deliver: 0, clocks, landing: None }
    }

    /// A copy into this program (a TMA load, a peer copy): one arrival expecting its bytes, which
    /// land with it.
    pub(crate) fn copy(clocks: Option<Clocks>, landing: Landing) -> Arrival {
        Arrival { count: 1, expect: 1, deliver: 1, clocks, landing: Some(landing) }
    }

    /// A multicast TMA load's arrival on its issuer's barrier: it expects the bytes of the same
    /// copy from each of the cluster's `programs` (each delivers them with [`Arrival::delivery`]).
    pub(crate) fn expect(programs: u32) -> Arrival {
        Arrival { count: 1, expect: programs, deliver: 0, clocks: None, landing: None }
    }

    /// The bytes of a multicast copy landing in this program.
    pub(crate) fn delivery(clocks: Option<Clocks>, landing: Landing) -> Arrival {
        Arrival { count: 0, expect: 0, deliver: 1, clocks, landing: Some(landing) }
    }
}

/// One mbarrier object.
#[derive(Default)]
pub(crate) struct BarrierState {
    pub expected: u32,
    /// Arrivals in the current phase.
    pub arrived: u32,
    /// Copies the current phase expects minus copies whose bytes landed in it (`expect_tx` minus
    /// `complete_tx`, counted in copies): the phase completes when it is 0.
    pub tx: i64,
    /// The bytes of the current phase's copies.
    landings: Vec<Landing>,
    pub completed: u64,
    /// What the current phase's arrivals release, and what the completed phases released.
    pending: Clocks,
    pub released: Clocks,
    /// Which entry of its `run_scoped` initialised it (`ProgramState::init_barriers`).
    pub epoch: u64,
}

impl BarrierState {
    /// A barrier of `expected` arrivals a phase, initialised by entry `epoch` of its scope.
    pub(crate) fn new(expected: u32, epoch: u64) -> BarrierState {
        BarrierState { expected, epoch, ..BarrierState::default() }
    }

    /// Counts an arrival; the phase completes at the expected count once every copy it expects
    /// has landed: the copies' bytes are written into `smem` (the barrier's program's), and what
    /// the phase's arrivals released is released to its waiters. Returns whether it completed.
    pub(crate) fn arrive(&mut self, a: Arrival, smem: &[AtomicU64]) -> bool {
        self.arrived += a.count;
        self.tx += i64::from(a.expect) - i64::from(a.deliver);
        if let Some(c) = &a.clocks {
            self.pending.join(c);
        }
        self.landings.extend(a.landing);
        if self.arrived < self.expected || self.tx != 0 {
            return false;
        }
        self.arrived = 0;
        self.completed += 1;
        self.landings.drain(..).for_each(|land| land(smem));
        let released = std::mem::take(&mut self.pending);
        self.released.join(&released);
        true
    }
}
