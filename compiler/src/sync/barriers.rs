//! S2: the arrivals each phase of a barrier gets, against the count it is declared with.
//!
//! A phase of `Barrier<n>` completes after `n` arrivals (PTX: the mbarrier's pending count; each
//! `copy_gmem_to_smem` on it is one `mbarrier.arrive.expect_tx`, each `barrier_arrive` one arrival
//! per warpgroup, per program of the cluster with `cluster = true`), and each `barrier_wait`
//! waits for the next phase of the waiting warpgroup. The arrivals of a phase are counted where
//! they can be told apart without run-time data:
//! - every warpgroup that arrives also waits, and each waits after the same number of its own
//!   arrivals every time: a phase gets the sum of those numbers;
//! - or every warpgroup that waits, waits once in the barrier's scope: its phase gets the
//!   arrivals of the others over the whole scope, and those of the waiters before their wait.
//! Otherwise (a barrier used at a run-time index, arriving from another program, arrivals on
//! run-time paths, or waits that do not line up) the barrier is not checked.

use super::{Context, Findings, Finding, WaitSeen};
use crate::diag::Diag;
use std::collections::HashSet;

pub fn check(cx: &Context, walks: &[Findings]) -> Vec<Finding> {
    if walks.iter().any(|w| w.lost_any) {
        return Vec::new();
    }
    let lost: HashSet<usize> = walks.iter().flat_map(|w| w.lost.iter().copied()).collect();
    let mut keys: Vec<(usize, i64)> = walks
        .iter()
        .flat_map(|w| &w.waits)
        .filter_map(|s| Some((s.barrier.alloc, s.barrier.index?)))
        .filter(|(alloc, _)| !lost.contains(alloc))
        .collect();
    keys.sort_unstable();
    keys.dedup();
    keys.into_iter().filter_map(|key| phase_error(cx, walks, key)).collect()
}

/// The error of the barrier `key`, if its phases surely get another number of arrivals.
fn phase_error(cx: &Context, walks: &[Findings], key: (usize, i64)) -> Option<Finding> {
    let waits: Vec<Vec<&WaitSeen>> = walks
        .iter()
        .map(|w| w.waits.iter().filter(|s| (s.barrier.alloc, s.barrier.index) == (key.0, Some(key.1))).collect())
        .collect();
    let first = waits.iter().flatten().min_by_key(|s| s.site)?;
    let arrivals = per_phase(walks, &waits, key)?;
    let (expected, declared) = first.barrier.declared(&cx.program.allocs)?;
    (arrivals != expected).then(|| Finding {
        site: first.site,
        diag: Diag::BarrierArrivals { barrier: first.barrier.name(&cx.program.allocs), declared, expected, arrivals },
        calls: first.calls.clone(),
    })
}

/// The arrivals of each phase, where every warpgroup's walk agrees on them.
fn per_phase(walks: &[Findings], waits: &[Vec<&WaitSeen>], key: (usize, i64)) -> Option<u32> {
    // Each waiter's own arrivals before each of its waits: one number, or the barrier is skipped.
    let mut own = Vec::new();
    for seen in waits.iter().filter(|s| !s.is_empty()) {
        let counts: HashSet<Option<u32>> = seen.iter().map(|s| s.arrivals).collect();
        match counts.into_iter().collect::<Vec<_>>()[..] {
            [Some(n)] => own.push((seen.len(), n)),
            _ => return None,
        }
    }
    if own.iter().any(|(len, _)| *len != own[0].0) {
        return None;
    }
    let mut sum: u32 = own.iter().map(|(_, n)| n).sum();
    for (w, walk) in walks.iter().enumerate() {
        let exits: Vec<_> = walk.exits.iter().filter(|x| x.key == key).collect();
        let arrives = exits.iter().any(|x| x.total != Some(0));
        if !arrives || !waits[w].is_empty() {
            continue;
        }
        // A warpgroup that arrives but never waits: only a single phase can be counted.
        let single = waits.iter().flatten().all(|s| walks[s.warpgroup].exits.iter().all(|x| x.key != key || x.waits == Some(1)));
        let totals: Vec<Option<u32>> = exits.iter().map(|x| x.total).collect::<HashSet<_>>().into_iter().collect();
        match totals[..] {
            [Some(n)] if single => sum = sum.checked_add(n)?,
            _ => return None,
        }
    }
    Some(sum)
}
