//! S2: the arrivals each phase of a barrier gets, against the count it is declared with.
//!
//! A phase of `Barrier<n>` completes after `n` arrivals (PTX: the mbarrier's pending count; each
//! `copy_gmem_to_smem` on it is one `mbarrier.arrive.expect_tx`, each `barrier_arrive` one arrival
//! per warpgroup, per program of the cluster with `cluster = true`), and each `barrier_wait`
//! waits for the next phase of the waiting warpgroup. The arrivals of a phase are counted where
//! they can be told apart without run-time data:
//! each warpgroup that waits on the barrier makes the same number of arrivals before each of its
//! waits, and each that arrives without waiting makes a known number over the barrier's scope
//! (`first_phase` says what that proves). Otherwise (a barrier used at a run-time index, arriving
//! from another program, arrivals on run-time paths, waits after varying numbers of arrivals) the
//! barrier is not checked.

use super::{Context, Finding, Findings, WaitSeen};
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
    let (arrivals, exact) = first_phase(walks, &waits, key)?;
    let (expected, declared) = first.barrier.declared(&cx.program.allocs)?;
    let wrong = arrivals < expected || (exact && arrivals > expected);
    wrong.then(|| Finding {
        site: first.site,
        diag: Diag::BarrierArrivals { barrier: first.barrier.name(&cx.program.allocs), declared, expected, arrivals },
        calls: first.calls.clone(),
    })
}

/// The arrivals the barrier's first phase can get, if every warpgroup's walk agrees on them,
/// and whether that count is exact (rather than an upper bound).
///
/// Each warpgroup that waits makes the same number of arrivals (`c`) before each of its waits,
/// so before its first; a warpgroup that never waits makes `t` over the whole scope. A phase
/// completes after exactly its declared number of arrivals, and no waiter passes its first wait
/// before the first phase completes, so the first phase gets at most the sum: fewer than
/// declared, and it never completes. Where every arriving warpgroup waits, all of them arrive
/// before their first waits: more than declared, and some arrival belongs to a later phase than
/// the one those waits wait for.
fn first_phase(walks: &[Findings], waits: &[Vec<&WaitSeen>], key: (usize, i64)) -> Option<(u32, bool)> {
    let mut sum: u32 = 0;
    let mut exact = true;
    for (w, walk) in walks.iter().enumerate() {
        let counts: Vec<Option<u32>> = match waits[w][..] {
            [] => {
                let exits = walk.exits.iter().filter(|x| x.key == key);
                let totals: Vec<Option<u32>> = exits.map(|x| x.total).collect();
                exact &= totals.iter().all(|t| *t == Some(0));
                totals
            }
            ref seen => seen.iter().map(|s| s.arrivals).collect(),
        };
        match counts.first() {
            Some(Some(n)) if counts.iter().all(|c| *c == Some(*n)) => sum = sum.checked_add(*n)?,
            None => {}
            _ => return None,
        }
    }
    Some((sum, exact))
}
