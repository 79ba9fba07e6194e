//! The walk over one warpgroup's code: values, control flow and the facts of `State`.
//!
//! Each warpgroup is walked on its own, with `warpgroup_id()` known, so a role's branch
//! (`if warpgroup_id() == 0 { .. }`) is followed alone. A branch whose condition is known takes
//! that branch; any other (data-dependent) branch walks both and keeps what holds on both. A loop
//! with a known trip count of at most `UNROLL` turns is walked turn by turn; any other loop is
//! walked twice: its first turn from the state before the loop, and its later turns from the
//! state that holds at the top of every turn after the first, the fixed point of the back edge.
//! Both walks report: a loop is written to turn, and what is wrong from its second turn on is
//! wrong in every launch where it turns twice. After the loop, what holds after its last turn,
//! whichever that is: the code after a loop is written for the loop having turned (a wgmma issued
//! in the loop and not waited for there is still in flight after it).

use super::access::Access;
use super::state::{self, State};
use super::value::{self, AccId, AccPlace, BarrierRef, Place, Value};
use super::{Context, Event, ExitSeen, Finding, Findings, WaitSeen};
use crate::diag::Diag;
use tessel_ir::memory::AllocKind;
use tessel_ir::program::{Allocation, Block, Expr, ExprKind, Stmt, Target};

/// Loops with a known trip count up to this are walked turn by turn.
const UNROLL: i64 = 16;
/// Walks of a loop's body before its back edge is given up on (and nothing assumed).
const ROUNDS: usize = 40;
/// Expressions walked per warpgroup before the check gives up on the kernel (and reports
/// nothing of that warpgroup).
const BUDGET: usize = 4_000_000;

pub struct Walker<'a> {
    pub cx: &'a Context<'a>,
    warpgroup: usize,
    pub state: State,
    /// Inside walks that only find a loop's fixed point: nothing is recorded.
    quiet: u32,
    /// Inside branches on run-time data: what happens there may not happen.
    uncertain: u32,
    /// The inlined kernel-function calls around this point, outermost first.
    calls: Vec<usize>,
    steps: usize,
    pub out: Findings,
}

impl<'a> Walker<'a> {
    pub fn new(cx: &'a Context<'a>, warpgroup: usize) -> Walker<'a> {
        let state = State::new(cx.program.slots);
        let out = Findings::default();
        Walker { cx, warpgroup, state, quiet: 0, uncertain: 0, calls: Vec::new(), steps: 0, out }
    }

    /// Walks the kernel's body; `None` if the walk went over budget.
    pub fn run(mut self) -> Option<Findings> {
        let body = &self.cx.program.body;
        self.block(body);
        (!self.out.exhausted).then_some(self.out)
    }

    pub fn site(&self, e: &Expr) -> Option<usize> {
        self.cx.sites.get(&(e as *const Expr)).copied()
    }

    fn recording(&self) -> bool {
        self.quiet == 0 && !self.out.exhausted
    }

    pub fn report(&mut self, at: &Expr, diag: Diag) {
        if let (true, Some(site)) = (self.recording(), self.site(at)) {
            let seen = self.out.errors.iter().any(|f| f.site == site && f.diag == diag);
            if !seen {
                self.out.errors.push(Finding { site, diag, calls: self.calls.clone() });
            }
        }
    }

    /// Records an access to shared memory for the races between warpgroups, if this warpgroup
    /// surely makes it without having waited since the program's last program-wide barrier.
    pub fn event(&mut self, access: Access, place: &Place, at: &Expr) {
        let (Some(region), Some(site)) = (self.state.region, self.site(at)) else { return };
        if self.recording() && self.uncertain == 0 && self.state.unsynced {
            let calls = self.calls.clone();
            self.out.events.push(Event {
                warpgroup: self.warpgroup,
                region,
                access,
                place: place.clone(),
                site,
                calls,
            });
        }
    }

    pub fn wait_seen(&mut self, barrier: BarrierRef, arrivals: state::Count, at: &Expr) {
        if let (true, Some(site)) = (self.recording(), self.site(at)) {
            let (warpgroup, calls) = (self.warpgroup, self.calls.clone());
            self.out.waits.push(WaitSeen { warpgroup, barrier, arrivals, site, calls });
        }
    }

    fn block(&mut self, b: &Block) -> Value {
        for s in &b.stmts {
            self.stmt(s);
        }
        b.tail.as_ref().map_or(Value::Unknown, |t| self.expr(t))
    }

    fn stmt(&mut self, s: &Stmt) {
        match s {
            Stmt::Let { targets, init } => {
                let v = self.expr(init);
                self.bind(targets, v);
            }
            Stmt::Assign { slot, value } => {
                let v = self.expr(value);
                self.set(*slot, v);
            }
            Stmt::For { slot, start, end, body } => self.for_loop(*slot, start, end, body),
            Stmt::If { cond, then, otherwise } => {
                self.branch(cond, then, otherwise.as_ref());
            }
            Stmt::Block(b) => {
                self.block(b);
            }
            Stmt::Expr(e) => {
                self.expr(e);
            }
        }
    }

    fn set(&mut self, slot: usize, v: Value) {
        if let Some(s) = self.state.slots.get_mut(slot) {
            *s = v;
        }
    }

    fn bind(&mut self, targets: &[Target], v: Value) {
        match (targets, v) {
            ([t], v) => {
                if let Some(slot) = t.slot {
                    self.set(slot, v);
                }
            }
            (ts, Value::Tuple(vs)) if ts.len() == vs.len() => {
                for (t, v) in ts.iter().zip(vs) {
                    self.bind(std::slice::from_ref(t), v);
                }
            }
            (ts, _) => {
                for slot in ts.iter().filter_map(|t| t.slot) {
                    self.set(slot, Value::Unknown);
                }
            }
        }
    }

    /// `if cond { then } else { otherwise }`, as a statement or a value.
    fn branch(&mut self, cond: &Expr, then: &Block, otherwise: Option<&Block>) -> Value {
        match self.expr(cond) {
            Value::Bool(true) => self.block(then),
            Value::Bool(false) => otherwise.map_or(Value::Unknown, |b| self.block(b)),
            _ => {
                let before = self.state.clone();
                self.uncertain += 1;
                let a = self.block(then);
                let after_then = std::mem::replace(&mut self.state, before);
                let b = otherwise.map_or(Value::Unknown, |o| self.block(o));
                self.uncertain -= 1;
                self.state.join(&after_then);
                a.join(b)
            }
        }
    }

    fn for_loop(&mut self, slot: usize, start: &Expr, end: &Expr, body: &Block) {
        let (start, end) = (self.expr(start), self.expr(end));
        match (&start, &end) {
            (Value::Int(a), Value::Int(b)) if b <= a => {}
            (Value::Int(a), Value::Int(b)) if b.checked_sub(*a).is_some_and(|n| n <= UNROLL) => {
                for i in *a..*b {
                    self.set(slot, Value::Int(i));
                    self.block(body);
                }
            }
            _ => {
                let first = if let Value::Int(a) = start { Value::Int(a) } else { Value::Unknown };
                self.iterate(slot, first, body);
            }
        }
    }

    /// A loop of unknown trip count: the first turn, then the later turns from the fixed point of
    /// the back edge (`X = S1 ∧ body(X)`, found by walks that record nothing), each walk reporting.
    fn iterate(&mut self, slot: usize, first: Value, body: &Block) {
        self.set(slot, first);
        self.block(body);
        let mut later = self.state.clone();
        self.quiet += 1;
        for round in 0..=ROUNDS {
            if round == ROUNDS || self.out.exhausted {
                later.forget();
                break;
            }
            self.state = later.clone();
            self.set(slot, Value::Unknown);
            self.block(body);
            let mut next = later.clone();
            next.join(&self.state);
            if next == later {
                break;
            }
            later = next;
        }
        self.quiet -= 1;
        self.state = later.clone();
        self.set(slot, Value::Unknown);
        self.block(body);
        // What holds at the top of every later turn holds after every turn.
        self.state = later;
    }

    pub fn expr(&mut self, e: &Expr) -> Value {
        self.steps += 1;
        if self.steps > BUDGET {
            self.out.exhausted = true;
        }
        if self.out.exhausted {
            return Value::Unknown;
        }
        use ExprKind as K;
        match &e.kind {
            K::Lit(l) => value::literal(l),
            K::Local(slot) => self.state.slots.get(*slot).cloned().unwrap_or(Value::Unknown),
            K::Const(v) => Value::Int(*v),
            K::Dim(_) | K::ProgramId(_) | K::NumPrograms(_) | K::ClusterRank | K::DeviceId => Value::Unknown,
            K::Remote { gmem, rank } => {
                self.each(&[gmem, rank]);
                Value::Unknown
            }
            K::WarpgroupId => Value::Int(self.warpgroup as i64),
            K::Tuple(items) => Value::Tuple(items.iter().map(|x| self.expr(x)).collect()),
            K::If { cond, then, otherwise } => self.branch(cond, then, Some(otherwise)),
            K::Unary { op, operand } => {
                let v = self.expr(operand);
                value::unary(*op, v, &e.ty)
            }
            K::Binary { op, lhs, rhs } => {
                let (a, b) = (self.expr(lhs), self.expr(rhs));
                value::binary(*op, a, b, &e.ty)
            }
            K::ScalarCast { value, dtype } => {
                let v = self.expr(value);
                value::cast(v, *dtype)
            }
            K::At { base, index } => {
                let (b, i) = (self.expr(base), self.expr(index));
                value::at(b, &i)
            }
            K::Slice { base, starts, lens } => {
                let b = self.expr(base);
                value::slice(b, starts, lens)
            }
            K::Transpose { base, swap } => {
                let b = self.expr(base);
                value::transpose(b, *swap)
            }
            K::RunScoped { allocs, body, sync_entry, sync_exit, .. } => {
                self.run_scoped(e, allocs, body, *sync_entry, *sync_exit)
            }
            K::RunState { init, slot, body, .. } => {
                self.expr(init);
                let name = self.cx.names.get(&self.site(e).unwrap_or(usize::MAX)).cloned().unwrap_or_default();
                self.set(*slot, Value::Acc(AccPlace { acc: AccId::State(*slot), name, window: None }));
                self.block(body)
            }
            _ => self.operation(e),
        }
    }

    /// The values of `es`, walked in order.
    pub fn each(&mut self, es: &[&Expr]) -> Vec<Value> {
        es.iter().map(|x| self.expr(x)).collect()
    }

    /// `run_scoped`: binds the allocations, starts a stretch between program-wide barriers where
    /// entering or leaving is one, and counts each new barrier's arrivals from zero.
    fn run_scoped(&mut self, e: &Expr, allocs: &[(usize, Allocation)], body: &Block, entry: bool, exit: bool) -> Value {
        let site = self.site(e);
        let mut barriers = Vec::new();
        for &(slot, how) in allocs {
            let v = match how {
                Allocation::Acc(a) => {
                    let name = self.cx.program.allocs.get(a).map(|x| x.name.clone()).unwrap_or_default();
                    Value::Acc(AccPlace { acc: AccId::Alloc(a), name, window: None })
                }
                Allocation::Smem(a) => Value::Smem(Place::whole(a)),
                Allocation::Barrier { alloc, array } => {
                    barriers.push(alloc);
                    match array {
                        true => Value::Barriers(alloc),
                        false => Value::Barrier(BarrierRef { alloc, index: Some(0), array: false }),
                    }
                }
            };
            self.set(slot, v);
        }
        self.open_barriers(&barriers);
        if let (true, Some(site)) = (entry, site) {
            (self.state.unsynced, self.state.region) = (true, Some(2 * site));
        }
        let call = site.and_then(|s| self.cx.calls_at.get(&s).copied());
        self.calls.extend(call);
        let v = self.block(body);
        if call.is_some() {
            self.calls.pop();
        }
        self.close_barriers(&barriers);
        if let (true, Some(site)) = (exit, site) {
            (self.state.unsynced, self.state.region) = (true, Some(2 * site + 1));
        }
        v
    }

    fn open_barriers(&mut self, barriers: &[usize]) {
        for &alloc in barriers {
            let count = match self.cx.program.allocs.get(alloc).map(|a| &a.kind) {
                Some(AllocKind::Barrier { count, .. }) => *count,
                _ => 0,
            };
            self.state.phases.retain(|p| p.key.0 != alloc);
            for i in 0..i64::from(count) {
                let fresh = Some(0);
                self.state.phases.push(state::Phase { key: (alloc, i), arrivals: fresh, total: fresh, waits: fresh });
            }
        }
    }

    fn close_barriers(&mut self, barriers: &[usize]) {
        let recording = self.recording();
        let (warpgroup, phases) = (self.warpgroup, &mut self.state.phases);
        for p in phases.iter().filter(|p| barriers.contains(&p.key.0)) {
            if recording {
                self.out.exits.push(ExitSeen { warpgroup, key: p.key, total: p.total, waits: p.waits });
            }
        }
        phases.retain(|p| !barriers.contains(&p.key.0));
    }
}
