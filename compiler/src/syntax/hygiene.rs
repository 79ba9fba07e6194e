//! The names of a kernel function's body, resolved as `typeck` resolves them (innermost `let`,
//! loop counter, closure parameter or const; then the function's parameters).
//!
//! An inlined body is a scope inside its caller (a `run_scoped` without allocations, see
//! `inline`), so a name it declares shadows the caller's only inside it, and a name it does not
//! declare would find the caller's. Two rules keep it hygienic:
//!
//! - `check`, once where the function is declared: every name the body uses is one of its
//!   parameters or its own locals and consts; any other is an error at its token, not a capture
//!   of whatever the caller happens to call that name.
//! - `rename_consts`, at each call: the function's consts get names of their own, because a
//!   kernel's consts are one table (`Facts::consts`), not scoped, and a function's `const G` must
//!   neither redefine nor clash with the kernel's `G` (or another function's).
//!
//! The bodies of calls nested in the body (already inlined, already checked where their functions
//! are declared) are skipped; only their arguments, which are this body's expressions, are visited.

use super::ast::*;
use super::function::Function;
use crate::codes::Code;
use crate::diag::Ctxt;
use std::collections::HashMap;

/// What a name of the body is bound to.
#[derive(Clone)]
enum Bound {
    Local,
    /// A const: its value when it is known (in `check`), its new name (in `rename_consts`).
    Const {
        value: Option<i64>,
        renamed: Option<syn::Ident>,
    },
}

enum Mode<'f> {
    /// Report names the body cannot see, and consts whose values are not known.
    Check(&'f Function),
    /// Rename the body's consts with this suffix.
    Rename(String),
}

struct Names<'a> {
    ctx: &'a Ctxt,
    mode: Mode<'a>,
    scopes: Vec<HashMap<String, Bound>>,
}

/// Checks, where `f` is declared, that its body (`body`, as read) names only what it declares.
pub fn check(ctx: &Ctxt, f: &Function, mut body: Block) {
    let params = f.params.iter().map(|p| (p.name.to_string(), Bound::Local)).collect();
    let mut names = Names { ctx, mode: Mode::Check(f), scopes: vec![params] };
    names.block(&mut body);
}

/// Gives the consts of one inlined body names of their own (`G` becomes `G__call3`).
pub fn rename_consts(ctx: &Ctxt, body: &mut Block, call: usize) {
    let mut names = Names { ctx, mode: Mode::Rename(format!("__call{call}")), scopes: vec![HashMap::new()] };
    names.block(body);
}

impl Names<'_> {
    fn scoped(&mut self, f: impl FnOnce(&mut Self)) {
        self.scopes.push(HashMap::new());
        f(self);
        self.scopes.pop();
    }

    fn bind(&mut self, name: &syn::Ident, bound: Bound) {
        if let Some(scope) = self.scopes.last_mut() {
            scope.insert(name.to_string(), bound);
        }
    }

    fn lookup(&self, name: &syn::Ident) -> Option<&Bound> {
        let key = name.to_string();
        self.scopes.iter().rev().find_map(|s| s.get(&key))
    }

    /// A use of `name`: renamed if it is a renamed const, reported if the body does not declare it.
    fn use_name(&mut self, name: &mut syn::Ident) {
        match (self.lookup(name).cloned(), &self.mode) {
            (Some(Bound::Const { renamed: Some(new), .. }), _) => *name = new,
            (Some(_), _) | (None, Mode::Rename(_)) => {}
            (None, Mode::Check(f)) => self.ctx.type_error(
                name.span(),
                Code::UnknownName,
                format!("cannot find `{name}` in kernel function `{}`", f.name),
                format!(
                    "a kernel function sees its parameters and its own names only, not its caller's: pass `{name}` \
                     as an argument"
                ),
            ),
        }
    }

    fn block(&mut self, b: &mut Block) {
        self.scoped(|n| {
            for s in &mut b.stmts {
                n.stmt(s);
            }
            if let Some(t) = &mut b.tail {
                n.expr(t);
            }
        });
    }

    fn stmt(&mut self, s: &mut Stmt) {
        match s {
            Stmt::Let { names, ty, init, .. } => {
                self.expr(init);
                if let Some(t) = ty {
                    self.type_expr(t);
                }
                for (name, _) in names.iter().filter(|(n, _)| n != "_") {
                    self.bind(name, Bound::Local);
                }
            }
            Stmt::Const(def) => self.constant(def),
            Stmt::Assign { name, value, .. } => {
                self.expr(value);
                if let (Some(Bound::Const { .. }), Mode::Check(_)) = (self.lookup(name), &self.mode) {
                    let help = "declare a mutable local instead: `let mut name = ..;`";
                    self.ctx.type_error(
                        name.span(),
                        Code::Immutable,
                        format!("cannot assign to the const `{name}`"),
                        help,
                    );
                }
                self.use_name(name);
            }
            Stmt::For { var, start, end, body, .. } => {
                self.expr(start);
                self.expr(end);
                self.scoped(|n| {
                    n.bind(var, Bound::Local);
                    n.block(body);
                });
            }
            Stmt::If { cond, then, otherwise, .. } => {
                self.expr(cond);
                self.block(then);
                if let Some(o) = otherwise {
                    self.block(o);
                }
            }
            Stmt::Block(b) => self.block(b),
            Stmt::Expr(e) => self.expr(e),
        }
    }

    /// `const G: i32 = value;`: in `check`, its value must be known from literals and the body's
    /// earlier consts (so that `typeck` never has to report on the renamed const).
    fn constant(&mut self, def: &mut ConstDef) {
        let before = self.ctx.error_count();
        self.expr(&mut def.value);
        let value = self.eval(&def.value);
        match &self.mode {
            Mode::Check(f) if value.is_none() && self.ctx.error_count() == before => self.ctx.type_error(
                &def.value,
                Code::ConstValue,
                format!("the value of `{}` is not known at compile time", def.name),
                format!(
                    "the consts of a kernel function are integer expressions over literals and `{}`'s other consts",
                    f.name
                ),
            ),
            Mode::Check(_) => {
                if let Some(v) = value.filter(|v| i32::try_from(*v).is_err()) {
                    let help = "a const is an `i32` in the kernel's arithmetic";
                    self.ctx.type_error(
                        &def.value,
                        Code::ConstValue,
                        format!("the value of `{}`, {v}, does not fit i32", def.name),
                        help,
                    );
                }
                self.bind(&def.name, Bound::Const { value, renamed: None });
            }
            Mode::Rename(suffix) => {
                let renamed = syn::Ident::new(&format!("{}{suffix}", def.name), def.name.span());
                self.bind(&def.name, Bound::Const { value, renamed: Some(renamed.clone()) });
                def.name = renamed;
            }
        }
    }

    /// An integer expression of literals and known consts, as `typeck` computes consts (in i64).
    fn eval(&self, e: &Expr) -> Option<i64> {
        match &e.kind {
            ExprKind::Int(v, _) => Some(*v),
            ExprKind::Var(name) => match self.lookup(name) {
                Some(Bound::Const { value, .. }) => *value,
                _ => None,
            },
            ExprKind::Unary { op: UnOp::Neg, operand } => self.eval(operand)?.checked_neg(),
            ExprKind::Binary { op, lhs, rhs } => op.eval_i64(self.eval(lhs)?, self.eval(rhs)?),
            _ => None,
        }
    }

    fn type_expr(&mut self, t: &mut TypeExpr) {
        match t {
            TypeExpr::Acc { shape, .. } | TypeExpr::Regs { shape, .. } => self.shape(shape),
            TypeExpr::Smem { shape, transforms, .. } => {
                self.shape(shape);
                for t in transforms {
                    if let Transform::Tiled(s) = t {
                        self.shape(s);
                    }
                }
            }
            TypeExpr::Barrier { arrivals, count, .. } => {
                for e in [arrivals, count].into_iter().flatten() {
                    self.expr(e);
                }
            }
            TypeExpr::Scalar(_) => {}
        }
    }

    fn shape(&mut self, s: &mut ShapeExpr) {
        for d in &mut s.dims {
            self.expr(d);
        }
    }

    fn exprs<'e>(&mut self, es: impl IntoIterator<Item = &'e mut Expr>) {
        for e in es {
            self.expr(e);
        }
    }

    fn expr(&mut self, e: &mut Expr) {
        use ExprKind as K;
        if let Some(args) = super::inline::arguments_mut(self.ctx, e) {
            // An inlined call: its arguments are this body's; its own body was checked where its
            // function is declared.
            return self.expr(args);
        }
        match &mut e.kind {
            K::Invalid
            | K::Int(..)
            | K::Float(..)
            | K::Bool(_)
            | K::ProgramId(_)
            | K::NumPrograms(_)
            | K::WarpgroupId
            | K::ClusterRank
            | K::DeviceId
            | K::DeviceCount
            | K::GlobalTimer
            | K::WgmmaWait(_)
            | K::CommitSmem
            | K::WaitSmemToGmem { .. }
            | K::SetMaxRegisters(_) => {}
            K::Var(name) => self.use_name(name),
            K::Tuple(items) => self.exprs(items),
            K::If { cond, then, otherwise } => {
                self.expr(cond);
                self.block(then);
                self.block(otherwise);
            }
            K::Unary { operand: x, .. }
            | K::ScalarCast { value: x, .. }
            | K::Transpose { base: x, .. }
            | K::Load { src: x, .. }
            | K::AccFromRegs(x)
            | K::BarrierWait(x, _)
            | K::BarrierArrive { barrier: x, .. }
            | K::Math { arg: x, .. }
            | K::Cast { value: x, .. }
            | K::Bitcast { value: x, .. }
            | K::Reduce { value: x, .. }
            | K::ToLayout { value: x, .. }
            | K::LayoutCast { value: x, .. } => self.expr(x),
            K::Binary { lhs: a, rhs: b, .. }
            | K::At { base: a, index: b }
            | K::Remote { gmem: a, rank: b }
            | K::Store { dst: a, value: b }
            | K::AtomicAdd { dst: a, value: b }
            | K::CopySmemToGmem { src: a, dst: b, .. }
            | K::Math2 { lhs: a, rhs: b, .. } => self.exprs([a, b].map(|x| &mut **x)),
            K::Mma { acc: a, a: b, b: c }
            | K::Fma { a, b, c }
            | K::CopyGmemToSmem { src: a, dst: b, barrier: c, .. } => self.exprs([a, b, c].map(|x| &mut **x)),
            K::Wgmma { acc, a, b, accumulate } => {
                self.exprs([acc, a, b].map(|x| &mut **x));
                self.exprs(accumulate.as_deref_mut());
            }
            K::CopySmemToPeer { src, dst, barrier, rank } => self.exprs([src, dst, barrier, rank].map(|x| &mut **x)),
            K::Semaphore { sems, index, end, count, .. } => {
                self.exprs([sems, index].map(|x| &mut **x));
                self.exprs(end.as_deref_mut().into_iter().chain(count.as_deref_mut()));
            }
            K::Tile { gmem, index, shape } => {
                self.expr(gmem);
                self.exprs(index);
                if let Some(s) = shape {
                    self.shape(s);
                }
            }
            K::Slice { base, args } => {
                self.expr(base);
                for a in args {
                    if let SliceArg::Range { start, end, .. } = a {
                        self.exprs([start, end]);
                    }
                }
            }
            K::Splat { value, shape, .. } => {
                self.expr(value);
                self.shape(shape);
            }
            K::Broadcast { value, shape, .. } => {
                self.expr(value);
                self.shape(shape);
            }
            K::Iota { shape, .. } => self.shape(shape),
            K::RunScoped { params, body, .. } => {
                // The allocations' types are read outside the scope they open.
                for (_, t) in params.iter_mut() {
                    self.type_expr(t);
                }
                self.scoped(|n| {
                    for (name, _) in params.iter() {
                        n.bind(name, Bound::Local);
                    }
                    n.block(body);
                });
            }
            K::RunState { init, param, body } => {
                self.expr(init);
                self.scoped(|n| {
                    n.bind(param, Bound::Local);
                    n.block(body);
                });
            }
        }
    }
}
