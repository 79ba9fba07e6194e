//! Global-memory semaphores: `semaphore_signal` and `semaphore_wait`.
//!
//! The pattern is CUTLASS's `GenericBarrier` (`include/cutlass/barrier.h`) at warpgroup
//! granularity. A signal synchronizes the warpgroup (`bar.sync`), so the stores of all its threads
//! come before the leader's `red.release.gpu` add, and a release at GPU scope makes them visible to
//! whoever acquires the value it wrote. A wait has the leader poll with `ld.acquire.gpu` and take
//! the count with an `atom.acquire.gpu` compare-and-swap, then synchronizes the warpgroup, so every
//! thread's later loads come after the acquire (PTX ISA, memory consistency model: release and
//! acquire patterns, causality order through `bar.sync`); a `fence.proxy.async.global` then puts
//! its later TMA copies from global memory (the async proxy) after it too. A signal of a range
//! `i..end` releases once for all its semaphores: `fence.acq_rel.gpu`, then a relaxed add to each.
//!
//! A `#[peers]` array's counters are signalled by other devices: every operation on them is of
//! system scope (`.sys` for `.gpu` above), so that a signal from another device synchronizes with
//! the wait here (a release and an acquire synchronize when each one's scope includes the other's
//! thread: PTX ISA #memory-consistency-model, morally strong operations). A wait only ever reads
//! this device's copy (`remote(..)` is for signals); what the signalling device stored here
//! before its signal, by register stores or by TMA stores it completed
//! (`wait_smem_to_gmem(n, complete = true)`), is then seen by this warpgroup's loads and, after
//! the proxy fence, its TMA copies.
//!
//! A counter outside the array is left alone: the leader skips the operation (as global register
//! loads and stores skip elements outside their arrays), so a bad index cannot write past the
//! buffer; the interpreter reports it instead.

use super::gen::Gen;
use super::memory::gmem_dims;
use super::sync::sync_warpgroup;
use super::value::Val;
use super::writer::Class;
use tessel_ir::legality::sync_scope;
use tessel_ir::ops::SemaphoreOp;
use tessel_ir::program::Expr;
use tessel_ir::ty::Ty;

/// How long (ns) the polling thread sleeps between reads of a semaphore that does not hold its count
/// yet: a hint that keeps the poll from flooding the memory system (PTX ISA, `nanosleep`).
const POLL_SLEEP_NS: u32 = 100;

/// What the leader needs to operate on one semaphore.
struct Semaphore {
    /// The `.b64` global address of the parameter's first counter.
    base: String,
    /// The index, a `.b32` register.
    index: String,
    /// The count, a `.b32` register or an immediate.
    count: String,
    /// The number of semaphores in the array, a `.b32` register or an immediate.
    len: String,
    /// `gpu`, or `sys` for a `#[peers]` array (`legality::sync_scope`).
    scope: &'static str,
}

/// `semaphore_signal(sems, i, n)`, `semaphore_wait(sems, i, n)`, or a signal of `i..end`.
pub fn emit_semaphore(
    g: &mut Gen,
    op: SemaphoreOp,
    sems: &Expr,
    (index, end): (&Expr, Option<&Expr>),
    count: Option<&Expr>,
) -> Val {
    let Some(sem) = operands(g, sems, index, count) else {
        return g.internal("a semaphore that is not a global array");
    };
    match (op, end) {
        (SemaphoreOp::Signal, None) => emit_signal(g, &sem),
        (SemaphoreOp::Signal, Some(end)) => {
            let end = g.scalar_reg(end);
            emit_signal_range(g, &sem, &end);
        }
        // A wait on a range is refused where the call is read (`syntax/calls.rs`).
        (SemaphoreOp::Wait, _) => emit_wait(g, &sem),
    }
    Val::Unit
}

/// The operands of the operation.
fn operands(g: &mut Gen, sems: &Expr, index: &Expr, count: Option<&Expr>) -> Option<Semaphore> {
    let Val::Gmem { param, addr: base, .. } = g.expr(sems) else { return None };
    let index = g.scalar_reg(index);
    let count = count.map_or_else(|| "1".to_string(), |n| g.scalar_reg(n));
    let len = gmem_dims(g, param).into_iter().next()?;
    let peers = matches!(&sems.ty, Ty::Gmem(t) if t.peers);
    Some(Semaphore { base, index, count, len, scope: sync_scope(peers).ptx() })
}

/// True when `index` is inside the array. Unsigned, so a negative index is outside too.
fn inside(g: &mut Gen, sem: &Semaphore, index: &str) -> String {
    let inside = g.w.reg(Class::Pred);
    g.w.ins(format!("setp.lt.u32 {inside}, {index}, {}", sem.len));
    inside
}

/// True in the warpgroup's leader when `index` is inside the array: the thread that operates on
/// that semaphore.
fn issuer(g: &mut Gen, sem: &Semaphore, index: &str) -> String {
    let inside = inside(g, sem, index);
    let issue = g.w.reg(Class::Pred);
    g.w.ins(format!("and.pred {issue}, {inside}, {}", g.lanes.leader));
    issue
}

/// The `.b64` global address of semaphore `index`: `base + 4 * index`.
fn address(g: &mut Gen, sem: &Semaphore, index: &str) -> String {
    let addr = g.w.reg(Class::B64);
    g.w.ins(format!("mad.wide.u32 {addr}, {index}, 4, {}", sem.base));
    addr
}

/// The warpgroup's stores are done (`bar.sync`), then the leader adds the count with release
/// semantics at GPU scope.
fn emit_signal(g: &mut Gen, sem: &Semaphore) {
    let issue = issuer(g, sem, &sem.index);
    sync_warpgroup(g);
    let done = g.w.label("signalled");
    g.w.ins(format!("@!{issue} bra {done}"));
    let addr = address(g, sem, &sem.index);
    g.w.ins(format!("red.release.{}.global.add.u32 [{addr}], {}", sem.scope, sem.count));
    g.w.put_label(&done);
}

/// As [`emit_signal`] for each semaphore of `index..end`, with one release for all: a GPU-scope
/// fence, then relaxed adds (a fence and a later strong write make a release pattern, PTX ISA's
/// memory consistency model). Each release waits for the memory operations before it, the
/// previous add among them, so a release per semaphore took about 0.2 us more per semaphore on
/// the H200 (`bench/results/semaphores/`); the adds alone are issued back to back.
fn emit_signal_range(g: &mut Gen, sem: &Semaphore, end: &str) {
    sync_warpgroup(g);
    let (next, done) = (g.w.label("signal_next"), g.w.label("signalled"));
    g.w.ins(format!("@!{} bra {done}", g.lanes.leader));
    g.w.ins(format!("fence.acq_rel.{}", sem.scope));
    let (i, past) = (g.w.reg(Class::B32), g.w.reg(Class::Pred));
    g.w.ins(format!("mov.b32 {i}, {}", sem.index));
    g.w.put_label(&next);
    g.w.ins(format!("setp.ge.s32 {past}, {i}, {end}"));
    g.w.ins(format!("@{past} bra {done}"));
    let inside = inside(g, sem, &i);
    let addr = address(g, sem, &i);
    g.w.ins(format!("@{inside} red.relaxed.{}.global.add.u32 [{addr}], {}", sem.scope, sem.count));
    g.w.ins(format!("add.s32 {i}, {i}, 1"));
    g.w.ins(format!("bra {next}"));
    g.w.put_label(&done);
}

/// The leader polls until the semaphore holds the count, then takes it with a compare-and-swap
/// from the value it saw (polling again if another waiter changed it first); then the warpgroup
/// synchronizes, so no thread reads before the leader's acquire, and a proxy fence orders the
/// acquire before the thread's later TMA copies from global memory as well as its loads (the
/// async proxy reads what the signaller's stores wrote through the generic one).
fn emit_wait(g: &mut Gen, sem: &Semaphore) {
    let (poll, take, done) = (g.w.label("sem_poll"), g.w.label("sem_take"), g.w.label("sem_taken"));
    let issue = issuer(g, sem, &sem.index);
    g.w.ins(format!("@!{issue} bra {done}"));
    let addr = address(g, sem, &sem.index);
    let (seen, left, found) = (g.w.reg(Class::B32), g.w.reg(Class::B32), g.w.reg(Class::B32));
    let (ready, lost) = (g.w.reg(Class::Pred), g.w.reg(Class::Pred));
    g.w.put_label(&poll);
    g.w.ins(format!("ld.acquire.{}.global.u32 {seen}, [{addr}]", sem.scope));
    g.w.ins(format!("setp.ge.u32 {ready}, {seen}, {}", sem.count));
    g.w.ins(format!("@{ready} bra {take}"));
    g.w.ins(format!("nanosleep.u32 {POLL_SLEEP_NS}"));
    g.w.ins(format!("bra {poll}"));
    g.w.put_label(&take);
    g.w.ins(format!("sub.u32 {left}, {seen}, {}", sem.count));
    g.w.ins(format!("atom.acquire.{}.global.cas.b32 {found}, [{addr}], {seen}, {left}", sem.scope));
    g.w.ins(format!("setp.ne.u32 {lost}, {found}, {seen}"));
    g.w.ins(format!("@{lost} bra {poll}"));
    g.w.put_label(&done);
    sync_warpgroup(g);
    g.w.ins("fence.proxy.async.global");
}
