//! `lower`: the checked syntax tree and `typeck::Facts` to the program (`tessel_ir::Program`), one
//! node per node.
//!
//! The one place that resolves names, folds constants and binds allocations: names are resolved as
//! `typeck` resolves them (innermost `let` or parameter, then consts, then runtime dimensions), each
//! binding getting its own frame slot; compile-time quantities (slice starts, shapes, dtypes) are
//! read from `Facts::types` or folded; each `run_scoped` parameter is bound to the allocation
//! `typeck` recorded for it (`Facts::scope_allocs`), and each TMA copy to its tensor map.
//! Every expression carries the type `typeck` gave it. The kernel passed checking, so anything
//! unexpected here is an internal error.

mod expr;
mod site;

use std::collections::HashMap;

use crate::syntax::ast::{self, Kernel, ParamTy, UnOp};
use crate::typeck::{Facts, Ty};
use tessel_ir::program::*;

/// Why a checked kernel could not be lowered: a bug in tessel, not in the kernel.
struct Internal(String);

type Result<T> = std::result::Result<T, Internal>;

fn internal(msg: impl Into<String>) -> Internal {
    Internal(msg.into())
}

/// The program of a checked kernel; an error is an internal one, at the kernel's name.
pub fn lower(kernel: &Kernel, facts: &Facts) -> std::result::Result<Program, syn::Error> {
    lower_with_origins(kernel, facts).map(|(program, _)| program)
}

/// The program of a checked kernel and where each of its expressions came from (`Origins`), for
/// the checks that read the program and report at the user's tokens.
pub fn lower_with_origins<'k>(
    kernel: &'k Kernel,
    facts: &'k Facts,
) -> std::result::Result<(Program, Origins<'k>), syn::Error> {
    program(kernel, facts)
        .map_err(|Internal(what)| crate::codes::internal_error(kernel.name.span(), format!("lowering: {what}")))
}

/// The syntax node of every expression of a program's body, in the order `Program::for_each_expr`
/// visits them (parents before children, in program order): the program has no spans, so a check
/// that reads it finds the tokens of an expression here. Lowering is one node per node, so the
/// table is built as the body is lowered, each node entered before its children.
pub struct Origins<'k> {
    pub exprs: Vec<&'k ast::Expr>,
}

/// What a name means at one point of the kernel.
#[derive(Clone, Copy)]
enum Binding {
    Slot(usize),
    Const(i64),
}

struct Lowerer<'a> {
    facts: &'a Facts,
    /// The kernel's `W` of `devices = W`: the value of `device_count()`.
    devices: Option<u32>,
    /// The syntax node of each expression lowered so far, in the order entered (`Origins`).
    origins: Vec<&'a ast::Expr>,
    scopes: Vec<HashMap<String, Binding>>,
    slots: usize,
    /// Whether the kernel has a `semaphore_wait`.
    waits: bool,
    /// Whether the kernel runs in clusters of more than one program.
    clustered: bool,
    /// Where the kernel's memory and synchronization operations are written.
    sites: site::Sites,
}

fn program<'k>(k: &'k Kernel, facts: &'k Facts) -> Result<(Program, Origins<'k>)> {
    let clustered = k.attr.cluster_size() > 1;
    let sites = site::Sites::default();
    let devices = k.attr.devices.as_ref().map(|d| d.value);
    let scopes = vec![HashMap::new()];
    let mut l = Lowerer { facts, devices, origins: Vec::new(), scopes, slots: 0, waits: false, clustered, sites };
    for def in &k.attr.consts {
        l.define_const(def)?;
    }
    let params = k.params.iter().map(|p| l.param(p)).collect::<Result<Vec<_>>>()?;
    let grid = k.attr.grid.iter().map(|g| l.expr(g)).collect::<Result<_>>()?;
    let grid_text = k.attr.grid.iter().map(crate::host::grid::render).collect();
    // `Origins` covers the body, as `Program::for_each_expr` does, not the grid.
    l.origins.clear();
    let body = l.block(&k.body)?;
    let divisibility = facts.divisibility.iter().map(|(d, n)| {
        let why = crate::typeck::divisibility_why(d, *n);
        Ok((l.dim_index(d)?, *n as usize, why))
    });
    let divisibility = divisibility.collect::<Result<_>>()?;
    let ragged = facts.ragged.iter().map(|d| l.dim_index(d)).collect::<Result<_>>()?;
    let [cx, cy, cz] = k.attr.cluster.value;
    let (files, sites) = l.sites.finish();
    let program = Program {
        name: k.name.to_string(),
        params,
        runtime_dims: facts.runtime_dims.clone(),
        divisibility,
        ragged,
        grid,
        grid_text,
        warpgroups: k.attr.warpgroups.value as usize,
        cluster: [cx as usize, cy as usize, cz as usize],
        max_registers: k.attr.max_registers.as_ref().map(|n| n.value),
        smem_bytes: facts.smem_bytes,
        scratch_bytes: facts.scratch_bytes,
        dynamic_smem_bytes: facts.dynamic_smem_bytes,
        allocs: facts.allocs.clone(),
        slots: l.slots,
        body,
        tensor_maps: facts.tensor_maps.clone(),
        waits_on_semaphores: l.waits,
        devices: k.attr.devices.as_ref().map(|d| d.value),
        files,
        sites,
    };
    Ok((program, Origins { exprs: l.origins }))
}

impl<'a> Lowerer<'a> {
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

    /// `f` in a scope of its own.
    fn scoped<T>(&mut self, f: impl FnOnce(&mut Self) -> Result<T>) -> Result<T> {
        self.scopes.push(HashMap::new());
        let out = f(self);
        self.scopes.pop();
        out
    }

    fn dim_index(&self, name: &str) -> Result<usize> {
        let index = self.facts.runtime_dims.iter().position(|d| d == name);
        index.ok_or_else(|| internal(format!("unknown dimension {name}")))
    }

    /// Parameter `i` takes slot `i`.
    fn param(&mut self, p: &ast::Param) -> Result<ParamInfo> {
        self.bind(&p.name.to_string());
        let kind = match &p.ty {
            ParamTy::Gmem { dtype, shape, mutable, .. } => {
                let dims = shape.iter().map(|d| self.dim_spec(d)).collect::<Result<_>>()?;
                ParamKind::Gmem { dtype: dtype.value, shape: dims, mutable: *mutable, peers: p.peers.is_some() }
            }
            ParamTy::Scalar(d) => ParamKind::Scalar(d.value),
        };
        Ok(ParamInfo { name: p.name.to_string(), kind })
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

    /// A dimension of a global parameter: static (a literal or a const), or runtime. Names
    /// follow `typeck`'s decision (`Facts::runtime_dims`), made before the body's consts were seen.
    fn dim_spec(&self, d: &ast::Dim) -> Result<DimSpec> {
        match d {
            ast::Dim::Lit(v) => Ok(DimSpec::Static(v.value as usize)),
            ast::Dim::Name(n) => {
                let name = n.to_string();
                if let Some(i) = self.facts.runtime_dims.iter().position(|d| *d == name) {
                    return Ok(DimSpec::Runtime(i));
                }
                match (self.lookup(&name), self.facts.consts.get(&name)) {
                    (Some(Binding::Const(v)), _) | (_, Some(&v)) => Ok(DimSpec::Static(v as usize)),
                    _ => Err(internal(format!("the dimension `{name}` is neither static nor a runtime dimension"))),
                }
            }
        }
    }

    /// The value of a compile-time integer expression, as `typeck::scalar::eval_const`.
    fn eval_const(&self, e: &ast::Expr) -> Option<i64> {
        match &e.kind {
            ast::ExprKind::Int(v, _) => Some(*v),
            ast::ExprKind::DeviceCount => self.devices.map(i64::from),
            ast::ExprKind::Var(n) => match self.lookup(&n.to_string()) {
                Some(Binding::Const(v)) => Some(v),
                Some(Binding::Slot(_)) => None,
                None => self.facts.consts.get(&n.to_string()).copied(),
            },
            ast::ExprKind::Unary { op: UnOp::Neg, operand } => self.eval_const(operand)?.checked_neg(),
            ast::ExprKind::Binary { op, lhs, rhs } => {
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

    /// The type `typeck` gave an expression.
    fn ty(&self, e: &ast::Expr) -> &Ty {
        self.facts.types.get(e.id as usize).unwrap_or(&Ty::Error)
    }

    fn block(&mut self, b: &'a ast::Block) -> Result<Block> {
        self.scoped(|l| {
            let mut stmts = Vec::new();
            for s in &b.stmts {
                if let Some(s) = l.stmt(s)? {
                    stmts.push(s);
                }
            }
            let tail = b.tail.as_ref().map(|t| l.expr(t).map(Box::new)).transpose()?;
            Ok(Block { stmts, tail })
        })
    }

    fn stmt(&mut self, s: &'a ast::Stmt) -> Result<Option<Stmt>> {
        Ok(Some(match s {
            ast::Stmt::Let { names, init, .. } => {
                let init = self.expr(init)?;
                let targets = names
                    .iter()
                    .map(|(n, mutable)| {
                        let slot = (n != "_").then(|| self.bind(&n.to_string()));
                        Target { slot, mutable: *mutable }
                    })
                    .collect();
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
                let (slot, body) = self.scoped(|l| {
                    let slot = l.bind(&var.to_string());
                    Ok((slot, l.block(body)?))
                })?;
                Stmt::For { slot, start, end, body }
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

    /// A name: a binding's slot, a const, or a runtime dimension.
    fn var(&self, name: &str) -> Result<ExprKind> {
        match self.lookup(name) {
            Some(Binding::Slot(s)) => return Ok(ExprKind::Local(s)),
            Some(Binding::Const(v)) => return Ok(ExprKind::Const(v)),
            None => {}
        }
        if let Some(v) = self.facts.consts.get(name) {
            return Ok(ExprKind::Const(*v));
        }
        match self.facts.runtime_dims.iter().position(|d| d == name) {
            Some(i) => Ok(ExprKind::Dim(i)),
            None => Err(internal(format!("unknown name `{name}`"))),
        }
    }
}
