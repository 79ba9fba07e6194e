//! `lower`: the checked syntax tree and `typeck::Facts` to the program (`tessel_ir::Program`), one
//! node per node.
//!
//! The one place that resolves names, folds constants and binds allocations: names are resolved as
//! `typeck` resolves them (innermost `let` or parameter, then consts, then runtime dimensions), each
//! binding getting its own frame slot; compile-time quantities (slice starts, shapes, dtypes) are
//! read from `Facts::types` or folded; each `run_scoped` parameter is bound to its entry of
//! `Facts::allocs`, which `typeck` records in program order. The kernel passed checking, so anything
//! unexpected here is an internal error.

use std::collections::HashMap;

use crate::syntax::ast::{self, ExprKind, Kernel, ParamTy, SliceArg, TypeExpr, UnOp};
use crate::typeck::{AllocKind, Facts, Ty};
use crate::types::{DType, Layout};
use tessel_ir::program::*;

/// Why a checked kernel could not be lowered: a bug in tessel, not in the kernel.
struct Internal(String);

type Result<T> = std::result::Result<T, Internal>;

/// What a name means at one point of the kernel.
#[derive(Clone, Copy)]
enum Binding {
    Slot(usize),
    Const(i64),
}

struct Lowerer<'a> {
    facts: &'a Facts,
    scopes: Vec<HashMap<String, Binding>>,
    slots: usize,
    /// The next `Facts::allocs` entry: `typeck` records allocations in program order.
    next_alloc: usize,
    /// Whether the kernel has a `semaphore_wait`.
    waits: bool,
    /// Whether the kernel runs in clusters of more than one program.
    clustered: bool,
}

fn internal(msg: impl Into<String>) -> Internal {
    Internal(msg.into())
}

/// The program of a checked kernel; an error is an internal one, at the kernel's name.
pub fn lower(kernel: &Kernel, facts: &Facts) -> std::result::Result<Program, syn::Error> {
    program(kernel, facts).map_err(|Internal(what)| {
        syn::Error::new(kernel.name.span(), format!("internal tessel error: lowering: {what}"))
    })
}

fn program(k: &Kernel, facts: &Facts) -> Result<Program> {
    let clustered = k.attr.cluster_size() > 1;
    let mut l = Lowerer { facts, scopes: vec![HashMap::new()], slots: 0, next_alloc: 0, waits: false, clustered };
    for def in &k.attr.consts {
        l.define_const(def)?;
    }
    let runtime_dims = facts.runtime_dims.clone();
    let dim_index = |name: &str| runtime_dims.iter().position(|d| d == name);
    let mut params = Vec::new();
    for p in &k.params {
        let slot = l.bind(&p.name.to_string());
        debug_assert_eq!(slot, params.len());
        let kind = match &p.ty {
            ParamTy::Gmem { dtype, shape, mutable, .. } => {
                let dims = shape.iter().map(|d| l.dim_spec(d, &dim_index)).collect::<Result<_>>()?;
                ParamKind::Gmem { dtype: dtype.value, shape: dims, mutable: *mutable }
            }
            ParamTy::Scalar(d) => ParamKind::Scalar(d.value),
        };
        params.push(ParamInfo { name: p.name.to_string(), kind });
    }
    let grid = k.attr.grid.iter().map(|g| l.expr(g)).collect::<Result<_>>()?;
    let grid_text = k.attr.grid.iter().map(crate::host::grid::render).collect();
    let body = l.block(&k.body)?;
    let divisibility = facts
        .divisibility
        .iter()
        .map(|(d, n)| {
            let why = crate::typeck::divisibility_why(d, *n);
            dim_index(d).map(|i| (i, *n as usize, why)).ok_or_else(|| internal(format!("unknown dimension {d}")))
        })
        .collect::<Result<_>>()?;
    let ragged = facts.ragged.iter().map(|d| dim_index(d).ok_or_else(|| internal(format!("unknown dimension {d}"))));
    let ragged = ragged.collect::<Result<_>>()?;
    let [cx, cy, cz] = k.attr.cluster.value;
    Ok(Program {
        name: k.name.to_string(),
        params,
        runtime_dims,
        divisibility,
        ragged,
        grid,
        grid_text,
        warpgroups: k.attr.warpgroups.value as usize,
        cluster: [cx as usize, cy as usize, cz as usize],
        max_registers: k.attr.max_registers.as_ref().map(|n| n.value),
        smem_bytes: facts.smem_bytes,
        dynamic_smem_bytes: facts.dynamic_smem_bytes,
        allocs: facts.allocs.clone(),
        slots: l.slots,
        body,
        tensor_maps: facts.tensor_maps.clone(),
        waits_on_semaphores: l.waits,
    })
}

impl Lowerer<'_> {
    fn bind(&mut self, name: &str) -> usize {
        let slot = self.slots;
        self.slots += 1;
        if let Some(scope) = self.scopes.last_mut() {
            scope.insert(name.to_string(), Binding::Slot(slot));
        }
        slot
    }

    fn lookup(&self, name: &str) -> Option<Binding> {
        self.scopes.iter().rev().find_map(|s| s.get(name).copied())
    }

    fn define_const(&mut self, def: &ast::ConstDef) -> Result<()> {
        let name = def.name.to_string();
        let value = self
            .eval_const(&def.value)
            .or_else(|| self.facts.consts.get(&name).copied())
            .ok_or_else(|| internal(format!("const `{name}` has no value")))?;
        if let Some(scope) = self.scopes.last_mut() {
            scope.insert(name, Binding::Const(value));
        }
        Ok(())
    }

    fn dim_spec(&self, d: &ast::Dim, dim_index: &dyn Fn(&str) -> Option<usize>) -> Result<DimSpec> {
        match d {
            ast::Dim::Lit(v) => Ok(DimSpec::Static(v.value as usize)),
            ast::Dim::Name(n) => {
                let name = n.to_string();
                if let Some(Binding::Const(v)) = self.lookup(&name) {
                    return Ok(DimSpec::Static(v as usize));
                }
                if let Some(v) = self.facts.consts.get(&name) {
                    return Ok(DimSpec::Static(*v as usize));
                }
                dim_index(&name).map(DimSpec::Runtime).ok_or_else(|| internal(format!("unknown dimension {name}")))
            }
        }
    }

    /// The value of a compile-time integer expression, as `typeck::scalar::eval_const`.
    fn eval_const(&self, e: &ast::Expr) -> Option<i64> {
        match &e.kind {
            ExprKind::Int(v, _) => Some(*v),
            ExprKind::Var(n) => match self.lookup(&n.to_string()) {
                Some(Binding::Const(v)) => Some(v),
                Some(Binding::Slot(_)) => None,
                None => self.facts.consts.get(&n.to_string()).copied(),
            },
            ExprKind::Unary { op: UnOp::Neg, operand } => self.eval_const(operand)?.checked_neg(),
            ExprKind::Binary { op, lhs, rhs } => {
                let (a, b) = (self.eval_const(lhs)?, self.eval_const(rhs)?);
                match op {
                    ast::BinOp::Add => a.checked_add(b),
                    ast::BinOp::Sub => a.checked_sub(b),
                    ast::BinOp::Mul => a.checked_mul(b),
                    ast::BinOp::Div => a.checked_div(b),
                    ast::BinOp::Rem => a.checked_rem(b),
                    ast::BinOp::Shl => u32::try_from(b).ok().and_then(|b| a.checked_shl(b)),
                    ast::BinOp::Shr => u32::try_from(b).ok().and_then(|b| a.checked_shr(b)),
                    _ => None,
                }
            }
            _ => None,
        }
    }

    fn ty(&self, e: &ast::Expr) -> &Ty {
        self.facts.types.get(e.id as usize).unwrap_or(&Ty::Error)
    }

    fn block(&mut self, b: &ast::Block) -> Result<Block> {
        self.scopes.push(HashMap::new());
        let mut stmts = Vec::new();
        for s in &b.stmts {
            if let Some(s) = self.stmt(s)? {
                stmts.push(s);
            }
        }
        let tail = b.tail.as_ref().map(|t| self.expr(t).map(Box::new)).transpose()?;
        self.scopes.pop();
        Ok(Block { stmts, tail })
    }

    fn stmt(&mut self, s: &ast::Stmt) -> Result<Option<Stmt>> {
        Ok(Some(match s {
            ast::Stmt::Let { names, init, .. } => {
                let init = self.expr(init)?;
                let targets =
                    names.iter().map(|(n, _)| if n == "_" { None } else { Some(self.bind(&n.to_string())) }).collect();
                Stmt::Let { targets, init }
            }
            ast::Stmt::Const(def) => {
                self.define_const(def)?;
                return Ok(None);
            }
            ast::Stmt::Assign { name, value, .. } => {
                let value = self.expr(value)?;
                match self.lookup(&name.to_string()) {
                    Some(Binding::Slot(slot)) => Stmt::Assign { slot, value },
                    _ => return Err(internal(format!("assignment to `{name}`, which is not a variable"))),
                }
            }
            ast::Stmt::For { var, start, end, body, .. } => {
                let (start, end) = (self.expr(start)?, self.expr(end)?);
                self.scopes.push(HashMap::new());
                let slot = self.bind(&var.to_string());
                let body = self.block(body);
                self.scopes.pop();
                Stmt::For { slot, start, end, body: body? }
            }
            ast::Stmt::If { cond, then, otherwise, .. } => Stmt::If {
                cond: self.expr(cond)?,
                then: self.block(then)?,
                otherwise: otherwise.as_ref().map(|b| self.block(b)).transpose()?,
            },
            ast::Stmt::Block(b) => Stmt::Block(self.block(b)?),
            ast::Stmt::Expr(e) => Stmt::Expr(self.expr(e)?),
        }))
    }

    fn boxed(&mut self, e: &ast::Expr) -> Result<Box<Expr>> {
        self.expr(e).map(Box::new)
    }

    fn exprs(&mut self, es: &[ast::Expr]) -> Result<Vec<Expr>> {
        es.iter().map(|e| self.expr(e)).collect()
    }

    fn expr(&mut self, e: &ast::Expr) -> Result<Expr> {
        use ExprKind as K;
        Ok(match &e.kind {
            K::Invalid => return Err(internal("an invalid expression passed checking")),
            K::Int(..) | K::Float(..) | K::Bool(_) => Expr::Lit(self.literal(e, None)?),
            K::Var(name) => self.var(&name.to_string())?,
            K::Tuple(items) => Expr::Tuple(self.exprs(items)?),
            K::If { cond, then, otherwise } => {
                Expr::If { cond: self.boxed(cond)?, then: self.block(then)?, otherwise: self.block(otherwise)? }
            }
            K::Unary { op, operand } => Expr::Unary { op: *op, operand: self.boxed(operand)? },
            K::Binary { op, lhs, rhs } => {
                let (lhs, rhs) = self.operands(lhs, rhs)?;
                Expr::Binary { op: *op, lhs, rhs }
            }
            K::ScalarCast { value, dtype } => Expr::ScalarCast { value: self.boxed(value)?, dtype: dtype.value },
            K::ProgramId(axis) => Expr::ProgramId(axis.value as usize),
            K::NumPrograms(axis) => Expr::NumPrograms(axis.value as usize),
            K::WarpgroupId => Expr::WarpgroupId,
            K::ClusterRank => Expr::ClusterRank,
            K::WgmmaWait(_) | K::CommitSmem | K::WaitSmemToGmem(_) | K::SetMaxRegisters(_) => Expr::Nop,
            K::RunScoped { params, body, .. } => self.run_scoped(params, body)?,
            K::RunState { init, param, body } => self.run_state(init, param, body)?,
            K::AccFromRegs(_) => return Err(internal("Acc::from_regs outside run_state passed checking")),
            K::Tile { .. }
            | K::At { .. }
            | K::Slice { .. }
            | K::Transpose { .. }
            | K::Load { .. }
            | K::Store { .. }
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
        })
    }

    /// Views, loads, stores, copies, barriers and matrix products.
    fn memory_expr(&mut self, e: &ast::Expr) -> Result<Expr> {
        use ExprKind as K;
        Ok(match &e.kind {
            K::Tile { gmem, index, .. } => {
                let shape = match self.ty(e) {
                    Ty::Tile(_, shape) => shape.as_ref().map(|s| s.iter().map(|&d| d as usize).collect()),
                    other => return Err(internal(format!("a tile typed {other}"))),
                };
                Expr::Tile { gmem: self.boxed(gmem)?, index: self.exprs(index)?, shape }
            }
            K::At { base, index } => Expr::At { base: self.boxed(base)?, index: self.boxed(index)? },
            K::Slice { base, args } => self.slice(e, base, args)?,
            K::Transpose { base, .. } => {
                let swap = match (self.ty(base), self.ty(e)) {
                    (Ty::Smem(a), Ty::Smem(b)) => a.transposed != b.transposed,
                    _ => return Err(internal("a transpose of something other than shared memory")),
                };
                Expr::Transpose { base: self.boxed(base)?, swap }
            }
            K::Load { src, .. } => Expr::Load(self.boxed(src)?),
            K::Store { dst, value } => Expr::Store { dst: self.boxed(dst)?, value: self.boxed(value)? },
            K::Wgmma { acc, a, b, accumulate } => Expr::Wgmma {
                acc: self.boxed(acc)?,
                a: self.boxed(a)?,
                b: self.boxed(b)?,
                accumulate: accumulate.as_deref().map(|c| self.boxed(c)).transpose()?,
            },
            K::Mma { acc, a, b } => Expr::Mma { acc: self.boxed(acc)?, a: self.boxed(a)?, b: self.boxed(b)? },
            K::CopyGmemToSmem { src, dst, barrier, multicast } => Expr::CopyIn {
                src: self.boxed(src)?,
                dst: self.boxed(dst)?,
                barrier: self.boxed(barrier)?,
                multicast: multicast.is_some(),
            },
            K::CopySmemToGmem { src, dst } => Expr::CopyOut { src: self.boxed(src)?, dst: self.boxed(dst)? },
            K::CopySmemToPeer { src, dst, barrier, rank } => Expr::CopyToPeer {
                src: self.boxed(src)?,
                dst: self.boxed(dst)?,
                barrier: self.boxed(barrier)?,
                rank: self.boxed(rank)?,
            },
            K::BarrierArrive { barrier, cluster } => {
                Expr::Arrive { barrier: self.boxed(barrier)?, cluster: cluster.is_some() }
            }
            // The interpreter runs a warpgroup's threads as one: whoever waits, they all do.
            K::BarrierWait(b, _) => Expr::Wait(self.boxed(b)?),
            K::Semaphore { op, sems, index, end, count } => {
                self.waits |= matches!(op, ast::SemaphoreOp::Wait);
                Expr::Semaphore {
                    op: *op,
                    sems: self.boxed(sems)?,
                    index: self.boxed(index)?,
                    end: end.as_deref().map(|e| self.boxed(e)).transpose()?,
                    count: count.as_deref().map(|n| self.boxed(n)).transpose()?,
                }
            }
            _ => return Err(internal("not a memory expression")),
        })
    }

    /// Register-array operations.
    fn regs_expr(&mut self, e: &ast::Expr) -> Result<Expr> {
        use ExprKind as K;
        Ok(match &e.kind {
            K::Splat { value, .. } => {
                let (dtype, shape) = self.regs_type(e)?;
                let value = match is_untyped_literal(value) {
                    true => Box::new(Expr::Lit(self.literal(value, Some(dtype))?)),
                    false => self.boxed(value)?,
                };
                Expr::Splat { value, dtype, shape }
            }
            K::Iota { axis, .. } => {
                let (dtype, shape) = self.regs_type(e)?;
                Expr::Iota { dtype, shape, axis: axis.value as usize }
            }
            K::Math { func, arg } => Expr::Math { func: *func, arg: self.boxed(arg)? },
            K::Math2 { func, lhs, rhs } => {
                let (lhs, rhs) = self.operands(lhs, rhs)?;
                Expr::Math2 { func: *func, lhs, rhs }
            }
            K::Fma { a, b, c } => {
                // Untyped literals take the result's dtype, as typeck gave it.
                let Some(dtype) = self.ty(e).elem_dtype() else {
                    return Err(internal(format!("an fma typed {}", self.ty(e))));
                };
                let mut operand = |x: &ast::Expr| match is_untyped_literal(x) {
                    true => self.literal(x, Some(dtype)).map(Expr::Lit),
                    false => self.expr(x),
                };
                Expr::Fma(Box::new([operand(a)?, operand(b)?, operand(c)?]))
            }
            K::Cast { value, dtype } => Expr::Cast { value: self.boxed(value)?, dtype: dtype.value },
            K::Bitcast { value, dtype } => Expr::Bitcast { value: self.boxed(value)?, dtype: dtype.value },
            K::Reduce { value, op, axis } => {
                Expr::Reduce { value: self.boxed(value)?, op: *op, axis: axis.value as usize }
            }
            K::Broadcast { value, .. } => {
                let spread = match self.ty(value) {
                    Ty::Regs(r) if r.layout == Layout::WgmmaRow => Spread::Rows,
                    Ty::Regs(r) if r.layout == Layout::WgmmaCol => Spread::Cols,
                    _ => Spread::Splat,
                };
                let (_, shape) = self.regs_type(e)?;
                Expr::Broadcast { value: self.boxed(value)?, shape, spread }
            }
            K::ToLayout { value, .. } | K::LayoutCast { value, .. } => Expr::Relayout(self.boxed(value)?),
            _ => return Err(internal("an expression of no known kind")),
        })
    }

    fn regs_type(&self, e: &ast::Expr) -> Result<(DType, Vec<usize>)> {
        match self.ty(e) {
            Ty::Regs(r) => Ok((r.dtype, r.shape.iter().map(|&d| d as usize).collect())),
            other => Err(internal(format!("expected a register array, typed {other}"))),
        }
    }

    fn var(&self, name: &str) -> Result<Expr> {
        match self.lookup(name) {
            Some(Binding::Slot(s)) => return Ok(Expr::Local(s)),
            Some(Binding::Const(v)) => return Ok(Expr::Lit(Literal { value: LitValue::Int(v), dtype: DType::I32 })),
            None => {}
        }
        if let Some(v) = self.facts.consts.get(name) {
            return Ok(Expr::Lit(Literal { value: LitValue::Int(*v), dtype: DType::I32 }));
        }
        match self.facts.runtime_dims.iter().position(|d| d == name) {
            Some(i) => Ok(Expr::Dim(i)),
            None => Err(internal(format!("unknown name `{name}`"))),
        }
    }

    /// A literal, taking `dtype` (or its own type).
    fn literal(&self, e: &ast::Expr, dtype: Option<DType>) -> Result<Literal> {
        let own = match self.ty(e) {
            Ty::Scalar(d) => *d,
            other => return Err(internal(format!("a literal typed {other}"))),
        };
        let value = literal_value(e).ok_or_else(|| internal("a literal without a value"))?;
        Ok(Literal { value, dtype: dtype.unwrap_or(own) })
    }

    /// Two operands of an operator; an untyped literal takes the other side's dtype, as in
    /// `typeck` (`k + 1`, `x * 0.5`), rounded once from its written value. Other scalars beside a
    /// register array are converted to the array's dtype at run time.
    fn operands(&mut self, lhs: &ast::Expr, rhs: &ast::Expr) -> Result<(Box<Expr>, Box<Expr>)> {
        let (lt, rt) = (self.ty(lhs).elem_dtype(), self.ty(rhs).elem_dtype());
        let target = match (lt, rt) {
            (Some(a), Some(b)) if a != b && is_untyped_literal(lhs) => Some((true, b)),
            (Some(a), Some(b)) if a != b && is_untyped_literal(rhs) => Some((false, a)),
            _ => None,
        };
        let side = |l: &mut Self, e: &ast::Expr, adopt: Option<DType>| match adopt {
            Some(d) => l.literal(e, Some(d)).map(|s| Box::new(Expr::Lit(s))),
            None => l.boxed(e),
        };
        let lhs = side(self, lhs, target.filter(|t| t.0).map(|t| t.1))?;
        let rhs = side(self, rhs, target.filter(|t| !t.0).map(|t| t.1))?;
        Ok((lhs, rhs))
    }

    fn slice(&mut self, e: &ast::Expr, base: &ast::Expr, args: &[SliceArg]) -> Result<Expr> {
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
        Ok(Expr::Slice { base: self.boxed(base)?, starts, lens })
    }

    fn run_scoped(&mut self, params: &[(proc_macro2::Ident, TypeExpr)], body: &ast::Block) -> Result<Expr> {
        let mut allocs = Vec::new();
        let mut names = Vec::new();
        for (name, ty) in params {
            let index = self.next_alloc;
            self.next_alloc += 1;
            let alloc = self.facts.allocs.get(index).filter(|a| *name == a.name);
            let alloc = alloc.ok_or_else(|| internal(format!("no allocation recorded for `{name}`")))?;
            let how = match (&alloc.kind, ty) {
                (AllocKind::Acc { dtype, shape }, _) => {
                    Allocation::Acc { dtype: *dtype, rows: shape[0] as usize, cols: shape[1] as usize }
                }
                (AllocKind::Smem { .. }, _) => Allocation::Smem(index),
                (AllocKind::Barrier { .. }, TypeExpr::Barrier { count, .. }) => {
                    Allocation::Barrier { alloc: index, array: count.is_some() }
                }
                _ => return Err(internal(format!("allocation `{name}` has an unexpected kind"))),
            };
            allocs.push(how);
            names.push(name.to_string());
        }
        // As the PTX writer: shared memory or barriers make the entry a program-wide barrier, and
        // barriers the exit too; in a cluster, barriers make both cluster-wide barriers as well.
        let sync_entry = allocs.iter().any(|a| !matches!(a, Allocation::Acc { .. }));
        let sync_exit = allocs.iter().any(|a| matches!(a, Allocation::Barrier { .. }));
        let sync_cluster = sync_exit && self.clustered;
        self.scopes.push(HashMap::new());
        let allocs = allocs.into_iter().zip(&names).map(|(a, n)| (self.bind(n), a)).collect();
        let body = self.block(body);
        self.scopes.pop();
        Ok(Expr::RunScoped { allocs, body: body?, sync_entry, sync_exit, sync_cluster })
    }

    fn run_state(&mut self, init: &ast::Expr, param: &proc_macro2::Ident, body: &ast::Block) -> Result<Expr> {
        let ExprKind::AccFromRegs(regs) = &init.kind else {
            return Err(internal("run_state without Acc::from_regs passed checking"));
        };
        let init = self.boxed(regs)?;
        self.scopes.push(HashMap::new());
        let slot = self.bind(&param.to_string());
        let body = self.block(body);
        self.scopes.pop();
        Ok(Expr::RunState { init, slot, body: body? })
    }
}

/// Whether `e` is an integer or float literal without a suffix (`typeck::scalar::is_untyped_literal`).
fn is_untyped_literal(e: &ast::Expr) -> bool {
    match &e.kind {
        ExprKind::Int(_, None) | ExprKind::Float(_, None) => true,
        ExprKind::Unary { op: UnOp::Neg, operand } => is_untyped_literal(operand),
        _ => false,
    }
}

/// A literal's value as written.
fn literal_value(e: &ast::Expr) -> Option<LitValue> {
    match &e.kind {
        ExprKind::Int(v, _) => Some(LitValue::Int(*v)),
        ExprKind::Float(v, _) => Some(LitValue::Float(*v)),
        ExprKind::Bool(b) => Some(LitValue::Bool(*b)),
        ExprKind::Unary { op: UnOp::Neg, operand } => match literal_value(operand)? {
            LitValue::Int(v) => Some(LitValue::Int(-v)),
            LitValue::Float(v) => Some(LitValue::Float(-v)),
            LitValue::Bool(_) => None,
        },
        _ => None,
    }
}
