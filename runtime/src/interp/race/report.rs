//! A race as the user reads it: both accesses by operation, source location, program and
//! warpgroup, the memory and element they share, and what orders them.

use tessel_ir::program::Program;

use super::shadow::{Access, Race, What};
use super::{Agents, Unit};

/// The memory two accesses share, for the message.
pub(crate) enum MemoryName<'a> {
    /// Element `element` (stored order) of buffer `buffer` in the shared memory of `program` (of
    /// its device, on a group).
    Shared { buffer: &'a str, element: Vec<usize>, program: (usize, [usize; 3]) },
    /// Element `element` of global array `array` (as `exec::array_name` names it).
    Global { array: &'a str, element: Vec<usize> },
}

impl MemoryName<'_> {
    fn describe(&self, agents: &Agents) -> String {
        match self {
            MemoryName::Shared { buffer, element, program } => format!(
                "shared memory `{buffer}` (element {element:?} in stored order) of {}",
                program_text(agents, *program)
            ),
            MemoryName::Global { array, element } => format!("global memory {array} (element {element:?})"),
        }
    }
}

/// `program (0, 0, 0)`, and on a group `program (0, 0, 0) of device 1`.
fn program_text(agents: &Agents, (device, [x, y, z]): (usize, [usize; 3])) -> String {
    match agents.on_group() {
        true => format!("program ({x}, {y}, {z}) of device {device}"),
        false => format!("program ({x}, {y}, {z})"),
    }
}

/// `the `wgmma` at f.rs:12:9 (program (0, 0, 0), warpgroup 1)`.
fn describe(prog: &Program, agents: &Agents, a: Access) -> String {
    let (program, wg, _) = agents.decode(a.agent);
    let at = a.site().and_then(|s| prog.site_text(s)).unwrap_or_else(|| "an unknown place".into());
    format!("the {} at {at} ({}, warpgroup {wg})", a.what().op(), program_text(agents, program))
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
        memory.describe(agents),
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
        What::TmaStore | What::TmaReduce if matches!(memory, MemoryName::Global { .. }) => format!(
            "Wait for the TMA store's writes (`wait_smem_to_gmem(n, complete = true)`) {issuer}{}",
            match (p1 == p2, wg1 == wg2) {
                (true, true) => "",
                (true, false) => ", and order the warpgroups with a barrier after that wait",
                (false, _) => ", and order the programs with a semaphore signalled after that wait",
            }
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
            (false, MemoryName::Global { .. }) if p1.0 != p2.0 => "Order the devices' programs with a semaphore \
                                                   of a `#[peers]` array: `semaphore_signal(remote(sems, rank), i)` \
                                                   after the first access, `semaphore_wait(sems, i)` before the \
                                                   second"
                .into(),
            (false, MemoryName::Global { .. }) => "Order the programs with a semaphore: `semaphore_signal` after \
                                                   the first access, `semaphore_wait` before the second"
                .into(),
        },
    }
}
