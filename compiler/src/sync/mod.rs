//! `sync`: the synchronization check. It reads a checked kernel's program (`tessel_ir::Program`)
//! and reports, at the token, the ways asynchronous hardware can race or hang (codes T0114 to
//! T0120 and T0149, in `docs/errors.md`):
//!
//! - S1: a shared buffer read (a wgmma operand, a register load, the source of a TMA store or a
//!   peer copy) while a TMA load into it has not been waited for (`barrier_wait` on its barrier);
//! - S2: a barrier whose phases get fewer arrivals than it is declared with (the wait never
//!   returns) or more (the wait may return before the last copy lands);
//! - S3: a shared buffer overwritten (a TMA load, a register store) while a wgmma that reads it
//!   may be in flight (no `wgmma_wait` covers it);
//! - S4: an accumulator read or stored while a wgmma that writes it may be in flight;
//! - S5: a TMA store, peer copy or wgmma reading shared memory written by register stores with no
//!   `commit_smem()` between;
//! - S6: a shared buffer overwritten while a TMA store (reducing or not) that reads it may be in
//!   flight (no `wait_smem_to_gmem` covers it);
//! - S7: a shared buffer written by one warpgroup and read by another with no barrier between;
//! - S8: a TMA store into another device's memory whose writes may not be complete at a
//!   `semaphore_signal` on a `#[peers]` counter, which publishes them to that device (`publish`).
//!
//! Each warpgroup's code is walked on its own (`walk`), over straight-line code, branches and
//! loops with their back edge, keeping the facts that hold on every path (`state`); the rules
//! S1, S3-S6 are one table, access by hazard (`access`), applied as each operation is walked
//! (`ops`). S2 (`barriers`) and S7 (`races`) compare what the warpgroups' walks saw.
//!
//! The check never guesses. Where the answer depends on run-time data (an `.at(s)` at a run-time
//! index, a branch on run-time data, a loop whose turns it cannot tell apart) it is silent: a
//! fact that holds on one path only is dropped where the paths meet, places at run-time indices
//! never surely overlap, and a barrier used at a run-time index is not counted. So a `Pipeline`,
//! whose stages are indexed by a counter the kernel keeps at run time, is checked through its
//! rewrite (`syntax::pipeline`) for what does not depend on the stage (the accumulators, the
//! buffers outside the ring), and its ring itself is known correct: the rewrite waits for each
//! stage before the body and releases it after `wgmma_wait`, and the syntax stage checks the
//! producer's copies against the ring's `copies`.
//!
//! The program has no spans: the lowering's `Origins` gives each expression's syntax node, where
//! errors point; an error inside an inlined kernel function gets the notes at its calls.

mod access;
mod barriers;
mod ops;
mod publish;
mod races;
mod state;
#[cfg(test)]
mod tests;
mod value;
mod walk;

use crate::diag::{Ctxt, Diag, Loc};
use crate::syntax::ast;
use crate::typeck::Facts;
use std::collections::{HashMap, HashSet};
use tessel_ir::program::{Expr, Program};
use value::{BarrierRef, Place};

/// Checks the synchronization of a kernel that passed `typeck` (`ctx` has no errors), adding
/// its errors to `ctx`. A kernel that cannot be lowered is left to the back end, which reports
/// that as an internal error.
pub fn check(ctx: &Ctxt, kernel: &ast::Kernel, facts: &Facts) {
    let Ok((program, origins)) = crate::lower::lower_with_origins(kernel, facts) else { return };
    // The entry's parameter space is known once the program is (its ABI).
    crate::typeck::devices::check_param_space(ctx, kernel, &program);
    let mut sites = HashMap::new();
    program.for_each_expr(&mut |e| {
        let next = sites.len();
        sites.insert(e as *const Expr, next);
    });
    if sites.len() != origins.exprs.len() {
        let what = format!("the program has {} expressions, its origins {}", sites.len(), origins.exprs.len());
        ctx.internal(kernel.name.span(), format!("sync: {what}"));
        return;
    }
    let cx = Context::new(ctx, &program, &origins.exprs, sites);
    for finding in findings(&cx) {
        report(ctx, &cx, finding);
    }
}

/// What the walks share: the program, each expression's site (its index in `Origins`), and what
/// the syntax nodes say that the program does not.
pub struct Context<'a> {
    pub program: &'a Program,
    pub origins: &'a [&'a ast::Expr],
    pub sites: HashMap<*const Expr, usize>,
    /// The call of a kernel function that an inlined scope stands for, by the scope's site.
    pub calls_at: HashMap<usize, usize>,
    /// The name of each `run_state`'s accumulator, by the `run_state`'s site.
    pub names: HashMap<usize, String>,
}

impl<'a> Context<'a> {
    fn new(
        ctx: &Ctxt,
        program: &'a Program,
        origins: &'a [&'a ast::Expr],
        sites: HashMap<*const Expr, usize>,
    ) -> Context<'a> {
        let mut calls_at = HashMap::new();
        let mut names = HashMap::new();
        for (site, e) in origins.iter().enumerate() {
            match &e.kind {
                ast::ExprKind::RunScoped { body, .. } => {
                    calls_at.extend(crate::syntax::inline::call_of(ctx, body).map(|call| (site, call)));
                }
                ast::ExprKind::RunState { param, .. } => {
                    names.insert(site, param.to_string());
                }
                _ => {}
            }
        }
        Context { program, origins, sites, calls_at, names }
    }
}

/// What one warpgroup's walk found.
#[derive(Default)]
pub struct Findings {
    pub errors: Vec<Finding>,
    /// Accesses to shared memory made before any wait since a program-wide barrier (for S7).
    pub events: Vec<Event>,
    /// Each wait on a barrier at a known index, with the arrivals before it (for S2).
    pub waits: Vec<WaitSeen>,
    /// Each barrier's arrivals and waits over its scope, where the scope ends (for S2).
    pub exits: Vec<ExitSeen>,
    /// Barrier allocations whose arrivals cannot be counted.
    pub lost: HashSet<usize>,
    /// A barrier the walk could not follow: no barrier's arrivals can be counted.
    pub lost_any: bool,
    pub exhausted: bool,
}

/// An error at the expression of `site`, inside the inlined calls `calls` (outermost first).
pub struct Finding {
    pub site: usize,
    pub diag: Diag,
    pub calls: Vec<usize>,
}

pub struct Event {
    pub warpgroup: usize,
    /// The stretch between program-wide barriers (`State::region`).
    pub region: usize,
    pub access: access::Access,
    pub place: Place,
    pub site: usize,
    pub calls: Vec<usize>,
}

pub struct WaitSeen {
    pub warpgroup: usize,
    pub barrier: BarrierRef,
    /// This warpgroup's arrivals on the barrier since its previous wait on it.
    pub arrivals: state::Count,
    pub site: usize,
    pub calls: Vec<usize>,
}

pub struct ExitSeen {
    pub warpgroup: usize,
    pub key: (usize, i64),
    pub total: state::Count,
    pub waits: state::Count,
}

/// Every error of the kernel: each warpgroup's, then those that compare warpgroups (which need
/// every warpgroup's walk).
fn findings(cx: &Context) -> Vec<Finding> {
    let walks: Vec<Option<Findings>> = (0..cx.program.warpgroups).map(|w| walk::Walker::new(cx, w).run()).collect();
    let complete = walks.iter().all(Option::is_some);
    let walks: Vec<Findings> = walks.into_iter().flatten().collect();
    let mut errors: Vec<Finding> = Vec::new();
    let mut add = |f: Finding| {
        if !errors.iter().any(|e| e.site == f.site && e.diag.message() == f.diag.message()) {
            errors.push(f);
        }
    };
    if complete {
        barriers::check(cx, &walks).into_iter().for_each(&mut add);
        races::check(cx, &walks).into_iter().for_each(&mut add);
    }
    walks.into_iter().flat_map(|w| w.errors).for_each(&mut add);
    errors.sort_by_key(|f| f.site);
    errors
}

fn report(ctx: &Ctxt, cx: &Context, f: Finding) {
    let Some(e) = cx.origins.get(f.site) else { return };
    within(ctx, &f.calls, Loc::from(*e), f.diag);
}

/// Records `diag` at `at` inside the inlined calls `calls` (outermost first), so that each call
/// gets its note.
fn within(ctx: &Ctxt, calls: &[usize], at: Loc, diag: Diag) {
    match calls.split_first() {
        Some((&call, inner)) => ctx.calls.within(call, || within(ctx, inner, at, diag)),
        None => ctx.error(at, diag),
    }
}
