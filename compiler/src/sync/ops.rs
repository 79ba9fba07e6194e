//! The operations' effects on a warpgroup's facts: each access is checked against the hazards the
//! table of `access` gives it, then leaves what it starts in flight.

use super::access::{self, Access};
use super::state::{self, Load, Wgmma};
use super::value::{BarrierRef, Value};
use super::walk::Walker;
use tessel_ir::ops::SemaphoreOp;
use tessel_ir::program::{Expr, ExprKind};
use tessel_ir::ty::Ty;

impl Walker<'_> {
    /// Every expression that is not a value, a view or control flow.
    pub fn operation(&mut self, e: &Expr) -> Value {
        use ExprKind as K;
        match &e.kind {
            K::Load { src, .. } => {
                let v = self.expr(src);
                let how = if matches!(v, Value::Acc(_)) { Access::AccLoad } else { Access::RegLoad };
                self.access(&v, how, src);
            }
            K::Store { dst, value } => {
                let d = self.expr(dst);
                self.expr(value);
                let how = if matches!(d, Value::Acc(_)) { Access::AccStore } else { Access::RegStore };
                self.access(&d, how, dst);
                if let Value::Smem(p) = d {
                    if let Some(site) = self.site(e) {
                        self.state.unfenced.retain(|(s, _)| *s != site);
                        self.state.unfenced.push((site, p));
                    }
                }
            }
            // Global memory: no shared buffer, accumulator or barrier is involved.
            K::AtomicAdd { dst, value } => {
                self.each(&[dst, value]);
            }
            K::Wgmma { acc, a, b, accumulate } => self.wgmma(e, acc, a, b, accumulate.as_deref()),
            K::WgmmaWait(n) => state::wait(&mut self.state.wgmmas, *n),
            K::CopyIn { src, dst, barrier, .. } => self.copy_in(e, src, dst, barrier),
            K::CopyOut { src, dst, reduce, .. } => {
                let s = self.expr(src);
                self.expr(dst);
                self.access(&s, Access::TmaStore, src);
                let place = if let Value::Smem(p) = s { Some(p) } else { None };
                if let Some(site) = self.site(e) {
                    state::issue(&mut self.state.stores, site, place);
                    self.tma_write(site, dst, reduce.is_some());
                }
            }
            K::CopyToPeer { src, dst, barrier, rank } => {
                let s = self.expr(src);
                self.each(&[dst, barrier, rank]);
                self.access(&s, Access::PeerCopy, src);
                // It arrives on the barrier of program `rank`, and the peers' copies on this
                // program's: arrivals no walk of this program can count.
                self.lose_barrier(barrier);
            }
            K::CommitSmem => self.state.unfenced.clear(),
            K::WaitSmemToGmem { n, complete } => {
                state::wait(&mut self.state.stores, *n);
                if *complete {
                    state::wait(&mut self.state.writes, *n);
                }
            }
            K::Arrive { barrier, cluster } => {
                let b = self.expr(barrier);
                let n = if *cluster { self.cx.program.cluster_size() as u32 } else { 1 };
                self.arrive(&b, barrier, n);
            }
            K::Wait { barrier, .. } => {
                let b = self.expr(barrier);
                self.wait_on(e, &b, barrier);
            }
            K::Semaphore { op, sems, index, end, count } => {
                let mut es = vec![&**sems, &**index];
                es.extend(end.as_deref());
                es.extend(count.as_deref());
                self.each(&es);
                match op {
                    SemaphoreOp::Wait => self.acquired(),
                    SemaphoreOp::Signal => self.publish(e, sems),
                }
            }
            K::Tile { gmem, index, .. } => {
                self.expr(gmem);
                self.each(&index.iter().collect::<Vec<_>>());
            }
            K::Mma { acc, a, b } => {
                self.each(&[acc, a, b]);
            }
            K::Fma(operands) => {
                self.each(&operands.iter().collect::<Vec<_>>());
            }
            K::Math2 { lhs, rhs, .. } => {
                self.each(&[lhs, rhs]);
            }
            K::Splat { value: x, .. }
            | K::Math { arg: x, .. }
            | K::Cast { value: x, .. }
            | K::Bitcast { value: x, .. }
            | K::Reduce { value: x, .. }
            | K::Broadcast { value: x, .. }
            | K::ToLayout(x)
            | K::LayoutCast(x) => {
                self.expr(x);
            }
            K::Iota { .. } | K::SetMaxRegisters(_) => {}
            // Values, views and control flow: `Walker::expr`'s.
            K::Lit(_)
            | K::Local(_)
            | K::Const(_)
            | K::Dim(_)
            | K::Tuple(_)
            | K::If { .. }
            | K::Unary { .. }
            | K::Binary { .. }
            | K::ScalarCast { .. }
            | K::ProgramId(_)
            | K::NumPrograms(_)
            | K::WarpgroupId
            | K::ClusterRank
            | K::DeviceId
            | K::GlobalTimer
            | K::Remote { .. }
            | K::At { .. }
            | K::Slice { .. }
            | K::Transpose { .. }
            | K::RunScoped { .. }
            | K::RunState { .. } => {}
        }
        Value::Unknown
    }

    /// Checks an access of `v` (the value of the operand `at`) against the hazards of its kind.
    fn access(&mut self, v: &Value, how: Access, at: &Expr) {
        let allocs = &self.cx.program.allocs;
        let found: Vec<_> = match v {
            Value::Smem(p) => {
                let found = how.hazards().iter().filter_map(|h| access::smem_hazard(&self.state, *h, how, p, allocs));
                let found = found.collect();
                self.event(how, p, at);
                found
            }
            Value::Acc(a) => how.hazards().iter().filter_map(|h| access::acc_hazard(&self.state, *h, how, a)).collect(),
            _ => Vec::new(),
        };
        for diag in found {
            self.report(at, diag);
        }
    }

    fn wgmma(&mut self, e: &Expr, acc: &Expr, a: &Expr, b: &Expr, accumulate: Option<&Expr>) {
        let (accv, av, bv) = (self.expr(acc), self.expr(a), self.expr(b));
        if let Some(c) = accumulate {
            self.expr(c);
        }
        self.access(&av, Access::WgmmaOperand, a);
        self.access(&bv, Access::WgmmaOperand, b);
        let reads = [av, bv].into_iter().filter_map(|v| if let Value::Smem(p) = v { Some(p) } else { None });
        let writes = if let Value::Acc(w) = accv { Some(w) } else { None };
        if let Some(site) = self.site(e) {
            state::issue(&mut self.state.wgmmas, site, Wgmma { reads: reads.collect(), writes });
        }
    }

    fn copy_in(&mut self, e: &Expr, src: &Expr, dst: &Expr, barrier: &Expr) {
        self.expr(src);
        let (d, b) = (self.expr(dst), self.expr(barrier));
        self.access(&d, Access::TmaLoad, dst);
        if let (Value::Smem(place), Value::Barrier(bar), Some(site)) = (d, &b, self.site(e)) {
            self.state.loads.retain(|l| l.site != site);
            self.state.loads.push(Load { site, place, barrier: *bar });
        }
        self.arrive(&b, barrier, 1);
    }

    /// `n` arrivals on the barrier `b` (the value of `at`).
    fn arrive(&mut self, b: &Value, at: &Expr, n: u32) {
        match b {
            Value::Barrier(BarrierRef { alloc, index: Some(i), .. }) => {
                if let Some(p) = self.state.phase((*alloc, *i)) {
                    p.arrivals = state::add(p.arrivals, n);
                    p.total = state::add(p.total, n);
                }
            }
            _ => self.lose_barrier(at),
        }
    }

    /// `barrier_wait`: the phase this warpgroup waits for completes, and with it the loads that
    /// completed on the barrier.
    fn wait_on(&mut self, e: &Expr, b: &Value, at: &Expr) {
        match b {
            Value::Barrier(bar @ BarrierRef { alloc, index: Some(i), .. }) => {
                let key = (*alloc, *i);
                let arrivals = self.state.phase(key).and_then(|p| p.arrivals);
                self.wait_seen(*bar, arrivals, e);
                if let Some(p) = self.state.phase(key) {
                    p.arrivals = Some(0);
                    p.waits = state::add(p.waits, 1);
                }
                self.state.loads.retain(|l| !l.barrier.may_be(bar));
            }
            Value::Barrier(bar) => {
                self.lose_barrier(at);
                self.state.loads.retain(|l| !l.barrier.may_be(bar));
            }
            _ => {
                self.lose_barrier(at);
                self.state.loads.clear();
            }
        }
        self.acquired();
    }

    /// This warpgroup has waited: it may now see what others did. With several warpgroups, what
    /// another warpgroup saw land (a TMA load it waited for) may be handed on by this wait, so
    /// no load is known to be in flight any more.
    fn acquired(&mut self) {
        self.state.unsynced = false;
        if self.cx.program.warpgroups > 1 {
            self.state.loads.clear();
        }
    }

    /// A barrier whose arrivals the check cannot count: at a run-time index, arriving from
    /// another program, or not followed. Its allocation's phases are not checked.
    fn lose_barrier(&mut self, at: &Expr) {
        match &at.ty {
            Ty::Barrier(b) => {
                self.state.blur_barriers(b.alloc);
                self.out.lost.insert(b.alloc);
            }
            _ => self.out.lost_any = true,
        }
    }
}
