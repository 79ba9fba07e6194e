//! A race as the user reads it: both accesses by operation, source location, program and
//! warpgroup, the memory and element they share, and what orders them.

use tessel_ir::program::Program;

use super::shadow::{Access, Race, What};
use super::{Agents, Unit};

/// The memory two accesses share, for the message.
pub(crate) enum MemoryName<'a> {
    /// Element `element` (stored order) of buffer `buffer` in the shared memory of `program`.
    Shared { buffer: &'a str, element: Vec<usize>, program: [usize; 3] },
    /// Element `element` of global array `array`.
    Global { array: &'a str, element: Vec<usize> },
}

impl MemoryName<'_> {
    fn describe(&self) -> String {
        match self {
            MemoryName::Shared { buffer, element, program: [x, y, z] } => {
                format!("shared memory `{buffer}` (element {element:?} in stored order) of program ({x}, {y}, {z})")
            }
            MemoryName::Global { array, element } => format!("global memory `{array}` (element {element:?})"),
        }
    }
}

/// `the `wgmma` at f.rs:12:9 (program (0, 0, 0), warpgroup 1)`.
fn describe(prog: &Program, agents: &Agents, a: Access) -> String {
    let (program, wg, _) = agents.decode(a.agent);
    let [x, y, z] = program;
    let at = a.site().and_then(|s| prog.site_text(s)).unwrap_or_else(|| "an unknown place".into());
    format!("the {} at {at} (program ({x}, {y}, {z}), warpgroup {wg})", a.what().op())
}

fn verb(what: What, write: bool, present: bool) -> &'static str {
    match (what.is_atomic(), write, present) {
        (true, _, true) => "updates",
        (true, _, false) => "update",
        (false, true, true) => "writes",
        (false, false, true) => "reads",
        (false, true, false) => "write",
        (false, false, false) => "read",
    }
}

/// The message for `race`, found when `later` (a write when `later_write`) met it on `memory`.
pub(crate) fn race_message(
    prog: &Program,
    agents: &Agents,
    race: &Race,
    later: Access,
    later_write: bool,
    memory: &MemoryName,
) -> String {
    let earlier = race.earlier;
    let first = describe(prog, agents, later);
    let second = describe(prog, agents, earlier);
    let relation = if earlier.what().is_async() {
        format!(" while {second} may still {} it,", verb(earlier.what(), race.earlier_write, false))
    } else {
        format!(", {second} {} it,", verb(earlier.what(), race.earlier_write, true))
    };
    format!(
        "data race on {}: {first} {} it{relation} and nothing orders the two{}. {}",
        memory.describe(),
        verb(later.what(), later_write, true),
        if race.unfenced { " for the async proxy" } else { "" },
        advice(agents, race, later, memory)
    )
}

/// How to order the two accesses, by what the earlier one (the one not yet ordered) is.
fn advice(agents: &Agents, race: &Race, later: Access, memory: &MemoryName) -> String {
    let earlier = race.earlier;
    if race.unfenced {
        return format!(
            "The register stores reach TMA and wgmma only after a fence: call `commit_smem()` after them, before \
             the {}",
            later.what().op()
        );
    }
    let (p1, wg1, _) = agents.decode(earlier.agent);
    let (p2, wg2, unit2) = agents.decode(later.agent);
    let issuer = match unit2 {
        Unit::Warpgroup => "before the access".to_string(),
        _ => format!("before issuing the {}", later.what().op()),
    };
    match earlier.what() {
        What::TmaLoad | What::PeerCopy => format!(
            "Wait on the barrier the copy arrives on (`barrier_wait`) {issuer}: the copy's bytes have landed only when \
             its phase completes (and check the barrier's arrival count: a phase with more arrivals than declared \
             completes before the copy lands)"
        ),
        What::Wgmma => format!(
            "Wait for the wgmma (`wgmma_wait`) {issuer}{}",
            if (p1, wg1) == (p2, wg2) { "" } else { ", and order the warpgroups with a barrier after that wait" }
        ),
        What::TmaStore | What::TmaReduce => format!(
            "Wait for the TMA store to read its source (`wait_smem_to_gmem`) {issuer}{}",
            if (p1, wg1) == (p2, wg2) { "" } else { ", and order the warpgroups with a barrier after that wait" }
        ),
        What::RegLoad | What::RegStore | What::AtomicAdd => match (p1 == p2, memory) {
            (true, _) => "Order the warpgroups with a barrier: `barrier_arrive` after the first access, \
                          `barrier_wait` before the second"
                .into(),
            (false, MemoryName::Shared { .. }) => "Order the cluster's programs with a barrier: \
                                                   `barrier_arrive(bar, cluster = true)` after the first access, \
                                                   `barrier_wait` before the second"
                .into(),
            (false, MemoryName::Global { .. }) => "Order the programs with a semaphore: `semaphore_signal` after \
                                                   the first access, `semaphore_wait` before the second"
                .into(),
        },
    }
}
