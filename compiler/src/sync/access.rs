//! The rules as data: how each operation touches a shared buffer or an accumulator (`Access`),
//! which operations still in flight it must not meet (`hazards`), and what it leaves in flight.
//!
//! What each operation does, in PTX (the compiler's `ptx` stage emits these):
//! - `copy_gmem_to_smem(src, dst, bar)`: `cp.async.bulk.tensor` into `dst`, which lands when a
//!   `barrier_wait(bar)` (`mbarrier.try_wait.parity`) returns; one arrival on `bar`
//!   (`mbarrier.arrive.expect_tx`).
//! - `copy_smem_to_gmem(src, ..)`, also with `reduce = Reduce::Op` (`cp.reduce.async.bulk.tensor`):
//!   a bulk group that reads `src` until a `wait_smem_to_gmem(n)` (`cp.async.bulk.wait_group.read
//!   n`) leaves at most the `n` most recent in flight.
//! - `wgmma(acc, a, b)`: a group (`wgmma.commit_group`) that reads `a` and `b` and writes `acc`
//!   until a `wgmma_wait(n)` (`wgmma.wait_group n`) leaves at most the `n` most recent in flight.
//! - `x.store(v)` into shared memory: generic-proxy writes, which the async proxy (TMA, wgmma)
//!   sees only after `commit_smem()` (`fence.proxy.async.shared::cta`).

use super::state::State;
use super::value::{AccPlace, Place};
use crate::diag::Diag;
use tessel_ir::memory::Alloc;

/// How an operation touches memory that asynchronous operations may be using.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Access {
    /// `x_s.load(..)`
    RegLoad,
    /// `x_s.store(v)`
    RegStore,
    /// `a` or `b` of `wgmma(acc, a, b)`
    WgmmaOperand,
    /// `dst` of `copy_gmem_to_smem`
    TmaLoad,
    /// `src` of `copy_smem_to_gmem`
    TmaStore,
    /// `src` of `copy_smem_to_peer`
    PeerCopy,
    /// `acc.load()`
    AccLoad,
    /// `acc.store(v)`
    AccStore,
}

/// What must not be in flight where an access happens.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Hazard {
    /// A TMA load into the place that no wait on its barrier has covered (S1).
    LoadInFlight,
    /// Register stores into the place not yet committed (S5).
    Unfenced,
    /// A wgmma that reads the place (S3).
    WgmmaReads,
    /// A TMA store that reads the place (S6).
    StoreReads,
    /// A wgmma that writes the accumulator (S4).
    WgmmaWrites,
}

impl Access {
    /// The hazards of each access: the table the check reads.
    pub fn hazards(self) -> &'static [Hazard] {
        match self {
            Access::RegLoad => &[Hazard::LoadInFlight],
            Access::WgmmaOperand | Access::TmaStore | Access::PeerCopy => &[Hazard::LoadInFlight, Hazard::Unfenced],
            Access::RegStore | Access::TmaLoad => &[Hazard::WgmmaReads, Hazard::StoreReads],
            Access::AccLoad | Access::AccStore => &[Hazard::WgmmaWrites],
        }
    }

    /// Whether the access writes the memory (for the races between warpgroups).
    pub fn writes(self) -> bool {
        match self {
            Access::RegStore | Access::TmaLoad | Access::AccStore => true,
            Access::RegLoad | Access::WgmmaOperand | Access::TmaStore | Access::PeerCopy | Access::AccLoad => false,
        }
    }

    /// The operation, as messages name it.
    pub fn describe(self) -> &'static str {
        match self {
            Access::RegLoad => "a register load",
            Access::RegStore => "a register store",
            Access::WgmmaOperand => "a wgmma",
            Access::TmaLoad => "a TMA load",
            Access::TmaStore => "a TMA store",
            Access::PeerCopy => "a peer copy",
            Access::AccLoad => "a load",
            Access::AccStore => "a store",
        }
    }
}

/// The diagnostic for `hazard` at an access of `place`, if the state says it is surely there.
pub fn smem_hazard(state: &State, hazard: Hazard, access: Access, place: &Place, allocs: &[Alloc]) -> Option<Diag> {
    let meets = |other: &Place| place.overlap(other) == super::value::Overlap::Yes;
    let name = || place.name(allocs);
    match hazard {
        Hazard::LoadInFlight => state.loads.iter().find(|l| meets(&l.place)).map(|l| Diag::LoadNotWaited {
            place: name(),
            barrier: l.barrier.name(allocs),
            reader: access.describe(),
        }),
        Hazard::Unfenced => state
            .unfenced
            .iter()
            .any(|(_, p)| meets(p))
            .then(|| Diag::NotCommitted { place: name(), reader: access.describe() }),
        Hazard::WgmmaReads => state
            .wgmmas
            .iter()
            .find(|g| g.what.reads.iter().any(meets))
            .map(|g| Diag::OverwrittenUnderWgmma { place: name(), writer: access.describe(), wait: g.younger.0 }),
        Hazard::StoreReads => state
            .stores
            .iter()
            .find(|g| g.what.as_ref().is_some_and(meets))
            .map(|g| Diag::OverwrittenUnderTmaStore { place: name(), writer: access.describe(), wait: g.younger.0 }),
        Hazard::WgmmaWrites => None,
    }
}

/// The diagnostic for `hazard` at an access of the accumulator `acc`, if surely there.
pub fn acc_hazard(state: &State, hazard: Hazard, access: Access, acc: &AccPlace) -> Option<Diag> {
    match hazard {
        Hazard::WgmmaWrites => state
            .wgmmas
            .iter()
            .find(|g| g.what.writes.as_ref().is_some_and(|w| w.overlaps(acc)))
            .map(|g| Diag::AccUnderWgmma { acc: acc.describe(), store: access.writes(), wait: g.younger.0 }),
        Hazard::LoadInFlight | Hazard::Unfenced | Hazard::WgmmaReads | Hazard::StoreReads => None,
    }
}
