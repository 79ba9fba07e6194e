//! Expressions: each `ast::ExprKind` to the `ExprKind` of the same construct, with its type.

use super::{internal, Lowerer, Result};
use crate::syntax::ast::{self, ExprKind as K, SliceArg, TypeExpr, UnOp};
use crate::typeck::{AllocKind, Ty};
use crate::types::{DType, Layout};
use tessel_ir::program::*;

impl<'a> Lowerer<'a> {
    fn boxed(&mut self, e: &'a ast::Expr) -> Result<Box<Expr>> {
        self.expr(e).map(Box::new)
    }

    fn exprs(&mut self, es: &'a [ast::Expr]) -> Result<Vec<Expr>> {
        es.iter().map(|e| self.expr(e)).collect()
    }

    fn opt(&mut self, e: Option<&'a ast::Expr>) -> Result<Option<Box<Expr>>> {
        e.map(|e| self.boxed(e)).transpose()
    }

    pub(super) fn expr(&mut self, e: &'a ast::Expr) -> Result<Expr> {
        self.origins.push(e);
        let kind = match &e.kind {
            K::Invalid => return Err(internal("an invalid expression passed checking")),
            K::Int(..) | K::Float(..) | K::Bool(_) => ExprKind::Lit(self.literal(e, None)?),
            K::Var(name) => self.var(&name.to_string())?,
            K::Tuple(items) => ExprKind::Tuple(self.exprs(items)?),
            K::If { cond, then, otherwise } => {
                ExprKind::If { cond: self.boxed(cond)?, then: self.block(then)?, otherwise: self.block(otherwise)? }
            }
            K::Unary { op, operand } => ExprKind::Unary { op: *op, operand: self.boxed(operand)? },
            K::Binary { op, lhs, rhs } => {
                let (lhs, rhs) = self.operands(lhs, rhs)?;
                ExprKind::Binary { op: *op, lhs, rhs }
            }
            K::ScalarCast { value, dtype } => ExprKind::ScalarCast { value: self.boxed(value)?, dtype: dtype.value },
            K::ProgramId(axis) => ExprKind::ProgramId(axis.value as usize),
            K::NumPrograms(axis) => ExprKind::NumPrograms(axis.value as usize),
            K::WarpgroupId => ExprKind::WarpgroupId,
            K::ClusterRank => ExprKind::ClusterRank,
            K::DeviceId => ExprKind::DeviceId,
            K::GlobalTimer => ExprKind::GlobalTimer,
            K::DeviceCount => {
                ExprKind::Const(self.devices.map(i64::from).ok_or_else(|| internal("device_count() without devices"))?)
            }
            K::Remote { gmem, rank } => ExprKind::Remote { gmem: self.boxed(gmem)?, rank: self.boxed(rank)? },
            K::WgmmaWait(n) => ExprKind::WgmmaWait(n.value),
            K::CommitSmem => ExprKind::CommitSmem,
            K::WaitSmemToGmem { n, complete } => ExprKind::WaitSmemToGmem { n: n.value, complete: complete.is_some() },
            K::SetMaxRegisters(n) => ExprKind::SetMaxRegisters(n.value),
            K::RunScoped { collective_axes, params, body } => {
                self.run_scoped(e, collective_axes.is_some(), params, body)?
            }
            K::RunState { init, param, body } => self.run_state(init, param, body)?,
            K::AccFromRegs(_) => return Err(internal("Acc::from_regs outside run_state passed checking")),
            K::Tile { .. }
            | K::At { .. }
            | K::Slice { .. }
            | K::Transpose { .. }
            | K::Load { .. }
            | K::Store { .. }
            | K::AtomicAdd { .. }
            | K::Wgmma { .. }
            | K::Mma { .. }
            | K::CopyGmemToSmem { .. }
            | K::CopySmemToGmem { .. }
            | K::CopySmemToPeer { .. }
            | K::BarrierArrive { .. }
            | K::BarrierWait(..)
            | K::Semaphore { .. } => self.memory_expr(e)?,
            K::Splat { .. }
            | K::Iota { .. }
            | K::Math { .. }
            | K::Math2 { .. }
            | K::Fma { .. }
            | K::Cast { .. }
            | K::Bitcast { .. }
            | K::Reduce { .. }
            | K::Broadcast { .. }
            | K::ToLayout { .. }
            | K::LayoutCast { .. } => self.regs_expr(e)?,
        };
        let site = self.sites.of(e, &kind);
        Ok(Expr { ty: self.ty(e).clone(), kind, site })
    }

    /// Views, loads, stores, copies, barriers and matrix products.
    fn memory_expr(&mut self, e: &'a ast::Expr) -> Result<ExprKind> {
        Ok(match &e.kind {
            K::Tile { gmem, index, .. } => {
                let shape = match self.ty(e) {
                    Ty::Tile(_, shape) => shape.as_ref().map(|s| s.iter().map(|&d| d as usize).collect()),
                    other => return Err(internal(format!("a tile typed {other}"))),
                };
                ExprKind::Tile { gmem: self.boxed(gmem)?, index: self.exprs(index)?, shape }
            }
            K::At { base, index } => ExprKind::At { base: self.boxed(base)?, index: self.boxed(index)? },
            K::Slice { base, args } => self.slice(e, base, args)?,
            K::Transpose { base, .. } => {
                let swap = match (self.ty(base), self.ty(e)) {
                    (Ty::Smem(a), Ty::Smem(b)) => a.transposed != b.transposed,
                    _ => return Err(internal("a transpose of something other than shared memory")),
                };
                ExprKind::Transpose { base: self.boxed(base)?, swap }
            }
            K::Load { src, layout } => {
                ExprKind::Load { src: self.boxed(src)?, layout: layout.as_ref().map(|l| l.value) }
            }
            K::Store { dst, value } => ExprKind::Store { dst: self.boxed(dst)?, value: self.boxed(value)? },
            K::AtomicAdd { dst, value } => ExprKind::AtomicAdd { dst: self.boxed(dst)?, value: self.boxed(value)? },
            K::Wgmma { acc, a, b, accumulate } => ExprKind::Wgmma {
                acc: self.boxed(acc)?,
                a: self.boxed(a)?,
                b: self.boxed(b)?,
                accumulate: self.opt(accumulate.as_deref())?,
            },
            K::Mma { acc, a, b } => ExprKind::Mma { acc: self.boxed(acc)?, a: self.boxed(a)?, b: self.boxed(b)? },
            K::CopyGmemToSmem { src, dst, barrier, multicast } => ExprKind::CopyIn {
                src: self.boxed(src)?,
                dst: self.boxed(dst)?,
                barrier: self.boxed(barrier)?,
                multicast: multicast.is_some(),
                map: self.tensor_map(e)?,
            },
            K::CopySmemToGmem { src, dst, reduce } => ExprKind::CopyOut {
                src: self.boxed(src)?,
                dst: self.boxed(dst)?,
                map: self.tensor_map(e)?,
                reduce: reduce.as_ref().map(|r| r.value),
            },
            K::CopySmemToPeer { src, dst, barrier, rank } => ExprKind::CopyToPeer {
                src: self.boxed(src)?,
                dst: self.boxed(dst)?,
                barrier: self.boxed(barrier)?,
                rank: self.boxed(rank)?,
            },
            K::BarrierArrive { barrier, cluster } => {
                ExprKind::Arrive { barrier: self.boxed(barrier)?, cluster: cluster.is_some() }
            }
            K::BarrierWait(b, waiters) => ExprKind::Wait { barrier: self.boxed(b)?, waiters: *waiters },
            K::Semaphore { op, sems, index, end, count } => {
                self.waits |= matches!(op, ast::SemaphoreOp::Wait);
                ExprKind::Semaphore {
                    op: *op,
                    sems: self.boxed(sems)?,
                    index: self.boxed(index)?,
                    end: self.opt(end.as_deref())?,
                    count: self.opt(count.as_deref())?,
                }
            }
            _ => return Err(internal("not a memory expression")),
        })
    }

    /// Register-array operations.
    fn regs_expr(&mut self, e: &'a ast::Expr) -> Result<ExprKind> {
        Ok(match &e.kind {
            K::Splat { value, .. } => {
                let (dtype, shape) = self.regs_type(e)?;
                ExprKind::Splat { value: Box::new(self.adopting(value, Some(dtype))?), dtype, shape }
            }
            K::Iota { axis, .. } => {
                let (dtype, shape) = self.regs_type(e)?;
                ExprKind::Iota { dtype, shape, axis: axis.value as usize }
            }
            K::Math { func, arg } => ExprKind::Math { func: *func, arg: self.boxed(arg)? },
            K::Math2 { func, lhs, rhs } => {
                let (lhs, rhs) = self.operands(lhs, rhs)?;
                ExprKind::Math2 { func: *func, lhs, rhs }
            }
            K::Fma { a, b, c } => {
                // Untyped literals take the result's dtype, as typeck gave it.
                let Some(dtype) = self.ty(e).elem_dtype() else {
                    return Err(internal(format!("an fma typed {}", self.ty(e))));
                };
                let operands =
                    [self.adopting(a, Some(dtype))?, self.adopting(b, Some(dtype))?, self.adopting(c, Some(dtype))?];
                ExprKind::Fma(Box::new(operands))
            }
            K::Cast { value, dtype } => ExprKind::Cast { value: self.boxed(value)?, dtype: dtype.value },
            K::Bitcast { value, dtype } => ExprKind::Bitcast { value: self.boxed(value)?, dtype: dtype.value },
            K::Reduce { value, op, axis } => {
                ExprKind::Reduce { value: self.boxed(value)?, op: *op, axis: axis.value as usize }
            }
            K::Broadcast { value, .. } => {
                let spread = match self.ty(value) {
                    Ty::Regs(r) if r.layout == Layout::WgmmaRow => Spread::Rows,
                    Ty::Regs(r) if r.layout == Layout::WgmmaCol => Spread::Cols,
                    _ => Spread::Splat,
                };
                let (_, shape) = self.regs_type(e)?;
                ExprKind::Broadcast { value: self.boxed(value)?, shape, spread }
            }
            K::ToLayout { value, .. } => ExprKind::ToLayout(self.boxed(value)?),
            K::LayoutCast { value, .. } => ExprKind::LayoutCast(self.boxed(value)?),
            _ => return Err(internal("an expression of no known kind")),
        })
    }

    fn regs_type(&self, e: &ast::Expr) -> Result<(DType, Vec<usize>)> {
        match self.ty(e) {
            Ty::Regs(r) => Ok((r.dtype, r.shape.iter().map(|&d| d as usize).collect())),
            other => Err(internal(format!("expected a register array, typed {other}"))),
        }
    }

    /// The tensor map `typeck` chose for a TMA copy.
    fn tensor_map(&self, call: &ast::Expr) -> Result<usize> {
        self.facts.tma_of.get(&call.id).copied().ok_or_else(|| internal("a TMA copy without a tensor map"))
    }

    /// A literal, taking `dtype` (or its own type).
    fn literal(&self, e: &ast::Expr, dtype: Option<DType>) -> Result<Literal> {
        let own = match self.ty(e) {
            Ty::Scalar(d) => *d,
            other => return Err(internal(format!("a literal typed {other}"))),
        };
        let (value, suffix) = match &e.kind {
            K::Int(v, suffix) => (LitValue::Int(*v), *suffix),
            K::Float(v, suffix) => (LitValue::Float(*v), *suffix),
            K::Bool(b) => (LitValue::Bool(*b), None),
            _ => return Err(internal("a literal without a value")),
        };
        Ok(Literal { value, suffix, dtype: dtype.unwrap_or(own) })
    }

    /// `e`, where an untyped literal (or its negation) takes `dtype` instead of its own type, as
    /// `typeck` types it there.
    fn adopting(&mut self, e: &'a ast::Expr, dtype: Option<DType>) -> Result<Expr> {
        let Some(dtype) = dtype.filter(|_| e.is_untyped_literal()) else { return self.expr(e) };
        self.origins.push(e);
        let kind = match &e.kind {
            K::Unary { op: UnOp::Neg, operand } => {
                ExprKind::Unary { op: UnOp::Neg, operand: Box::new(self.adopting(operand, Some(dtype))?) }
            }
            _ => ExprKind::Lit(self.literal(e, Some(dtype))?),
        };
        Ok(Expr { ty: self.ty(e).clone(), kind, site: None })
    }

    /// Two operands of an operator; an untyped literal takes the other side's dtype, as in
    /// `typeck` (`k + 1`, `x * 0.5`), rounded once from its written value. Other scalars beside a
    /// register array are converted to the array's dtype at run time.
    fn operands(&mut self, lhs: &'a ast::Expr, rhs: &'a ast::Expr) -> Result<(Box<Expr>, Box<Expr>)> {
        let (lt, rt) = (self.ty(lhs).elem_dtype(), self.ty(rhs).elem_dtype());
        let (left, right) = match (lt, rt) {
            (Some(a), Some(b)) if a != b && lhs.is_untyped_literal() => (Some(b), None),
            (Some(a), Some(b)) if a != b && rhs.is_untyped_literal() => (None, Some(a)),
            _ => (None, None),
        };
        Ok((Box::new(self.adopting(lhs, left)?), Box::new(self.adopting(rhs, right)?)))
    }

    fn slice(&mut self, e: &ast::Expr, base: &'a ast::Expr, args: &[SliceArg]) -> Result<ExprKind> {
        let starts = args
            .iter()
            .map(|a| match a {
                SliceArg::Full(_) => Some(0),
                SliceArg::Range { start, .. } => self.facts.slice_bounds.get(&start.id).map(|&v| v as usize),
            })
            .collect::<Option<Vec<usize>>>()
            .ok_or_else(|| internal("a slice bound is not a constant"))?;
        let lens = match self.ty(e) {
            Ty::Smem(s) => s.shape(),
            Ty::Acc(a) => a.shape.clone(),
            Ty::Regs(r) => r.shape.clone(),
            other => return Err(internal(format!("a slice typed {other}"))),
        };
        let lens = lens.iter().map(|&d| d as usize).collect();
        Ok(ExprKind::Slice { base: self.boxed(base)?, starts, lens })
    }

    fn run_scoped(
        &mut self,
        call: &ast::Expr,
        collective: bool,
        params: &[(syn::Ident, TypeExpr)],
        body: &'a ast::Block,
    ) -> Result<ExprKind> {
        // A kernel function's call is a scope without parameters, which typeck checks as a call.
        let recorded = self.facts.scope_allocs.get(&call.id).map_or(&[][..], Vec::as_slice);
        if recorded.len() != params.len() {
            return Err(internal(format!("{} allocations recorded for {} parameters", recorded.len(), params.len())));
        }
        let mut allocs = Vec::new();
        for ((name, ty), &index) in params.iter().zip(recorded) {
            let alloc = self.facts.allocs.get(index).filter(|a| *name == a.name);
            let alloc = alloc.ok_or_else(|| internal(format!("no allocation recorded for `{name}`")))?;
            let how = match (&alloc.kind, ty) {
                (AllocKind::Acc { .. }, _) => Allocation::Acc(index),
                (AllocKind::Smem { .. }, _) => Allocation::Smem(index),
                (AllocKind::Barrier { .. }, TypeExpr::Barrier { count, .. }) => {
                    Allocation::Barrier { alloc: index, array: count.is_some() }
                }
                _ => return Err(internal(format!("allocation `{name}` has an unexpected kind"))),
            };
            allocs.push((name.to_string(), how));
        }
        // Shared memory or barriers make the entry a program-wide barrier, and barriers the exit
        // too; in a cluster, barriers make both cluster-wide barriers as well.
        let sync_entry = allocs.iter().any(|(_, a)| !matches!(a, Allocation::Acc(_)));
        let sync_exit = allocs.iter().any(|(_, a)| matches!(a, Allocation::Barrier { .. }));
        let sync_cluster = sync_exit && self.clustered;
        let (allocs, body) = self.scoped(|l| {
            let allocs = allocs.into_iter().map(|(n, a)| (l.bind(&n), a)).collect();
            Ok((allocs, l.block(body)?))
        })?;
        Ok(ExprKind::RunScoped { allocs, body, collective, sync_entry, sync_exit, sync_cluster })
    }

    fn run_state(&mut self, init: &'a ast::Expr, param: &syn::Ident, body: &'a ast::Block) -> Result<ExprKind> {
        let (K::AccFromRegs(regs), Ty::Acc(acc)) = (&init.kind, self.ty(init)) else {
            return Err(internal("run_state without Acc::from_regs passed checking"));
        };
        let acc = acc.clone();
        let init = self.boxed(regs)?;
        let (slot, body) = self.scoped(|l| {
            let slot = l.bind(&param.to_string());
            Ok((slot, l.block(body)?))
        })?;
        Ok(ExprKind::RunState { init, acc, slot, body })
    }
}
