//! S7: shared memory written by one warpgroup and read by another with no barrier between them.
//!
//! Warpgroups order their accesses to shared memory only through program-wide barriers (entering
//! and leaving a `run_scoped` that allocates shared memory or barriers) and through waits (a
//! `barrier_wait` after the writer's arrival or copy, a `semaphore_wait` after its signal). An
//! access that a warpgroup surely makes before any wait since the last program-wide barrier is
//! ordered after nothing another warpgroup did since that barrier; two such accesses, a write and
//! a read of the same memory by two warpgroups, race.

use super::value::Overlap;
use super::{Context, Event, Finding, Findings};
use crate::diag::Diag;

pub fn check(cx: &Context, walks: &[Findings]) -> Vec<Finding> {
    let events: Vec<&Event> = walks.iter().flat_map(|w| &w.events).collect();
    let mut out: Vec<Finding> = Vec::new();
    for read in events.iter().filter(|e| !e.access.writes()) {
        let races = |w: &&&Event| {
            w.access.writes()
                && w.warpgroup != read.warpgroup
                && w.region == read.region
                && w.place.overlap(&read.place) == Overlap::Yes
        };
        let Some(write) = events.iter().find(races) else { continue };
        if out.iter().any(|f| f.site == read.site) {
            continue;
        }
        out.push(Finding {
            site: read.site,
            diag: Diag::UnorderedWarpgroups {
                place: read.place.name(&cx.program.allocs),
                writer: write.warpgroup,
                write: write.access.describe(),
                reader: read.warpgroup,
            },
            calls: read.calls.clone(),
        });
    }
    out
}
