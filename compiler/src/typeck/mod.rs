//! `typeck`: gives every value its type, shape, memory space and register layout, and rejects what
//! the hardware or the language cannot do, at the user's span, with every error of a kernel at once.
//!
//! The catalog's rules are `check_<rule>` functions in the file of the construct they govern:
//! `alloc` (scoped allocations, A-rows), `acc` (accumulator loads and stores, B-rows), `regs` (register
//! arrays and layouts, C-rows), `mma` (warp-level mma, D-rows), `wgmma` (E-rows), `memory` (views of
//! shared and global memory, TMA, barriers), `semaphore` (global-memory semaphores), `scalar`
//! (scalars, consts, the grid), `signature` (the parameters and the attribute), `call` (inlined
//! calls of kernel functions: arguments, bodies, return values). The checker returns `Facts` that
//! later stages consume.

mod acc;
mod alloc;
mod call;
pub(crate) mod devices;
mod memory;
mod mma;
mod regs;
mod scalar;
pub mod scratch;
mod semaphore;
mod signature;
mod wgmma;

use crate::codes::Code;
use crate::diag::{Ctxt, Loc};
use crate::syntax::ast::*;
use proc_macro2::Span;
use std::collections::HashMap;
pub use tessel_ir::memory::{Alloc, AllocKind, TensorMapUse};
pub use tessel_ir::ty::{self, *};

/// 32-bit registers of one SM, and at most those for one block (CUDA Programming Guide, technical
/// specifications for compute capability 9.0: 64K per SM, 64K per block).
const SM_REGISTERS: u64 = 65_536;

/// What checking learned about a kernel: the type of every expression and the memory plan.
#[derive(Clone, Debug)]
pub struct Facts {
    /// The type of each expression, by `ExprId`.
    pub types: Vec<Ty>,
    /// Compile-time constants by name.
    pub consts: HashMap<String, i64>,
    /// Runtime dimensions in the order they first appear in the parameters.
    pub runtime_dims: Vec<String>,
    /// Every allocation of every `run_scoped`, in program order.
    pub allocs: Vec<Alloc>,
    /// The allocation of each closure parameter of each `run_scoped`, by the call's id: indices
    /// into `allocs`, one per parameter, in order.
    pub scope_allocs: HashMap<ExprId, Vec<usize>>,
    /// Peak shared memory of the allocations in bytes, alignment padding included.
    pub smem_bytes: u64,
    /// Scratch each warpgroup needs for `to_layout` and column reductions (see `scratch`).
    pub scratch_bytes: u32,
    /// The dynamic shared memory a launch provides: allocations, scratch and alignment slack.
    pub dynamic_smem_bytes: u64,
    /// The TMA tensor maps the kernel needs, one per (parameter, box, swizzle); passed by value.
    pub tensor_maps: Vec<TensorMapUse>,
    /// Which tensor map each `copy_gmem_to_smem` / `copy_smem_to_gmem` call uses, by the call's id.
    pub tma_of: HashMap<ExprId, usize>,
    /// Runtime dimensions that tiles cover exactly: (dimension, tile extent), checked at launch.
    pub divisibility: Vec<(String, i64)>,
    /// The runtime dimensions `ragged(..)` names (checked to be ones): tiles may overhang them,
    /// and the launch checks their room in 32-bit indices instead.
    pub ragged: Vec<String>,
    /// The value of each slice bound (`acc.slice([.., a..b])`), by the bound's expression: a
    /// literal, a const or an immutable `let` of them, which the PTX writer and the interpreter
    /// read from here rather than evaluate again.
    pub slice_bounds: HashMap<ExprId, i64>,
}

/// Why a launch needs runtime dimension `dim` to be a multiple of `tile`: the message of its
/// `Error::Divisibility`, on the GPU and in the interpreter alike.
pub fn divisibility_why(dim: &str, tile: i64) -> String {
    format!(
        "the kernel's tiles are {tile} wide along {dim} and must cover it exactly \
         (`ragged({dim})` lets the last one overhang)"
    )
}

/// A local name.
#[derive(Clone, Debug)]
struct Var {
    ty: Ty,
    mutable: bool,
    /// Declaration order, so loop-carried values are numbered as written (C7).
    order: usize,
    /// The last assignment, where a loop-carry error points.
    assigned_at: Option<Loc>,
    /// The value of an immutable integer `let` of literals, consts and other such names
    /// (`let col0 = BN * half;` in an unrolled loop), for slice bounds.
    known: Option<i64>,
}

pub(crate) struct Checker<'a> {
    ctx: &'a Ctxt,
    kernel: &'a Kernel,
    scopes: Vec<HashMap<String, Var>>,
    facts: Facts,
    /// Bytes of shared memory in use by the enclosing scopes.
    smem_cursor: u64,
    /// The span of the allocation where the peak was reached, for A9.
    smem_peak_span: Option<Span>,
    /// How many names were declared so far.
    declared: usize,
}

/// Checks a kernel; every problem goes to `ctx`.
pub fn check(ctx: &Ctxt, kernel: &Kernel) -> Facts {
    let mut ck = Checker {
        ctx,
        kernel,
        scopes: vec![HashMap::new()],
        facts: Facts {
            types: vec![Ty::Error; ctx.id_count() as usize],
            consts: HashMap::new(),
            runtime_dims: Vec::new(),
            allocs: Vec::new(),
            smem_bytes: 0,
            scratch_bytes: 0,
            dynamic_smem_bytes: 0,
            tensor_maps: Vec::new(),
            tma_of: HashMap::new(),
            divisibility: Vec::new(),
            ragged: Vec::new(),
            slice_bounds: HashMap::new(),
            scope_allocs: HashMap::new(),
        },
        smem_cursor: 0,
        smem_peak_span: None,
        declared: 0,
    };
    ck.check_kernel();
    ck.facts
}

impl<'a> Checker<'a> {
    fn check_kernel(&mut self) {
        for c in &self.kernel.attr.consts {
            self.define_const(c);
        }
        self.check_params();
        self.check_attr();
        let body = &self.kernel.body;
        let ty = self.check_block(body);
        if !matches!(ty, Ty::Unit | Ty::Error) {
            let span = body.tail.as_deref().map_or(body.span.into(), Loc::from);
            self.ctx.type_error(
                span,
                Code::BlockValue,
                format!("a kernel body has no value, but this is {ty}"),
                "end the body with a statement (`;`)",
            );
        }
        alloc::check_smem_total(self);
    }

    fn define_const(&mut self, c: &ConstDef) {
        let ty = self.check_expr(&c.value);
        if ty.is_error() {
            return;
        }
        let name = c.name.to_string();
        let clash = if self.facts.runtime_dims.contains(&name) {
            Some("a runtime dimension of a global array, read from its shape at launch")
        } else if self.kernel.params.iter().any(|p| p.name == name) {
            Some("a parameter")
        } else {
            None
        };
        if let Some(what) = clash {
            self.ctx.type_error(
                c.name.span(),
                Code::NameClash,
                format!("`{name}` is already {what}, so it cannot also be a const"),
                "rename one of them (a dimension declared in `consts(..)` of #[kernel] is static)",
            );
            return;
        }
        match scalar::eval_const(self, &c.value) {
            Some(v) => {
                // A const is an `i32` where the kernel computes with it (`infer_var`): PTX would
                // see an out-of-range immediate. (Kept, so that its uses report nothing more.)
                if i32::try_from(v).is_err() {
                    self.ctx.type_error(
                        &c.value,
                        Code::ConstValue,
                        format!("the value of `{}`, {v}, does not fit i32", c.name),
                        "a const is an `i32` in the kernel's arithmetic",
                    );
                }
                self.facts.consts.insert(c.name.to_string(), v);
            }
            None if scalar::is_const_arithmetic(self, &c.value) => self.ctx.type_error(
                &c.value,
                Code::ConstValue,
                format!("the value of `{}` overflows, divides by zero or shifts out of range", c.name),
                "consts are computed in i64 when the kernel is compiled",
            ),
            None => self.ctx.type_error(
                c.value.span,
                Code::ConstValue,
                format!("the value of `{}` is not known at compile time", c.name),
                "consts are integer expressions over literals and other consts",
            ),
        }
    }

    // ---- names --------------------------------------------------------------------------------

    fn bind(&mut self, name: &syn::Ident, ty: Ty, mutable: bool) {
        if name == "_" {
            return;
        }
        self.declared += 1;
        if let Some(scope) = self.scopes.last_mut() {
            let order = self.declared;
            scope.insert(name.to_string(), Var { ty, mutable, order, assigned_at: None, known: None });
        }
    }

    /// Records the compile-time value of a `let` just bound, if it is immutable and has one.
    fn know(&mut self, name: &syn::Ident, mutable: bool, value: Option<i64>) {
        if mutable {
            return;
        }
        if let Some(var) = self.scopes.last_mut().and_then(|s| s.get_mut(&name.to_string())) {
            var.known = value;
        }
    }

    fn lookup(&self, name: &str) -> Option<&Var> {
        self.scopes.iter().rev().find_map(|s| s.get(name))
    }

    fn lookup_mut(&mut self, name: &str) -> Option<&mut Var> {
        self.scopes.iter_mut().rev().find_map(|s| s.get_mut(name))
    }

    fn record(&mut self, e: &Expr, ty: Ty) -> Ty {
        if let Some(slot) = self.facts.types.get_mut(e.id as usize) {
            *slot = ty.clone();
        }
        ty
    }

    // ---- blocks and statements ----------------------------------------------------------------

    fn check_block(&mut self, b: &Block) -> Ty {
        self.scopes.push(HashMap::new());
        for s in &b.stmts {
            self.check_stmt(s);
        }
        let ty = match &b.tail {
            Some(t) => self.check_expr(t),
            None => Ty::Unit,
        };
        self.scopes.pop();
        ty
    }

    fn check_stmt(&mut self, s: &Stmt) {
        match s {
            Stmt::Let { names, ty, init, span } => self.check_let(names, ty.as_ref(), init, *span),
            Stmt::Const(c) => self.define_const(c),
            Stmt::Assign { name, value, .. } => self.check_assign(name, value),
            Stmt::For { var, start, end, body, .. } => self.check_for(var, start, end, body),
            Stmt::If { cond, then, otherwise, .. } => self.check_if(cond, then, otherwise.as_ref()),
            Stmt::Block(b) => self.check_loop_body(b),
            Stmt::Expr(e) => {
                // A value computed for nothing is a mistake in a kernel (a call whose name was lost,
                // a forgotten store); the results of `run_scoped` and `run_state` may be dropped.
                let ty = self.check_expr(e);
                if !matches!(ty, Ty::Unit | Ty::Error)
                    && !matches!(e.kind, ExprKind::RunScoped { .. } | ExprKind::RunState { .. })
                {
                    self.ctx.type_error(
                        e,
                        Code::DroppedValue,
                        format!("this {ty} is computed and dropped"),
                        "bind it with `let` or remove it",
                    );
                }
            }
        }
    }

    fn check_let(&mut self, names: &[(syn::Ident, bool)], ty: Option<&TypeExpr>, init: &Expr, span: Span) {
        let value = self.check_expr(init);
        if let Some(t) = ty {
            let declared = self.declared_type(t);
            if !value.is_error() && !declared.is_error() && declared != value {
                self.ctx.type_error(
                    init,
                    Code::MismatchedTypes,
                    format!("expected {declared}, found {value}"),
                    "make the annotation match the value, or convert the value",
                );
            }
        }
        match (names, &value) {
            ([(name, mutable)], _) => {
                let known = scalar::eval_known(self, init);
                self.bind(name, value.clone(), *mutable);
                self.know(name, *mutable, known);
            }
            (_, Ty::Tuple(parts)) if parts.len() == names.len() => {
                let items = match &init.kind {
                    ExprKind::Tuple(items) if items.len() == names.len() => Some(items),
                    _ => None,
                };
                let known: Vec<Option<i64>> =
                    (0..names.len()).map(|k| items.and_then(|items| scalar::eval_known(self, &items[k]))).collect();
                for (((name, mutable), t), v) in names.iter().zip(parts).zip(known) {
                    self.bind(name, t.clone(), *mutable);
                    self.know(name, *mutable, v);
                }
            }
            (_, Ty::Error) => {
                for (name, mutable) in names {
                    self.bind(name, Ty::Error, *mutable);
                }
            }
            _ => {
                self.ctx.type_error(
                    span,
                    Code::MismatchedTypes,
                    format!("cannot destructure {value} into {} names", names.len()),
                    "match the tuple's length",
                );
                for (name, mutable) in names {
                    self.bind(name, Ty::Error, *mutable);
                }
            }
        }
    }

    /// The type a `let` annotation names (register arrays and scalars only).
    fn declared_type(&mut self, t: &TypeExpr) -> Ty {
        match t {
            TypeExpr::Scalar(d) => Ty::Scalar(d.value),
            TypeExpr::Regs { dtype, shape, layout, .. } => match self.static_shape(shape) {
                Some(shape) => Ty::Regs(RegsTy { dtype: dtype.value, shape, layout: layout.value }),
                None => Ty::Error,
            },
            other => {
                self.ctx.type_error(
                    other.span(),
                    Code::OperandKind,
                    "only register arrays and scalars are declared with `let`",
                    "allocate accumulators, shared memory and barriers with `run_scoped(|x: T| ..)`",
                );
                Ty::Error
            }
        }
    }

    fn check_assign(&mut self, name: &syn::Ident, value: &Expr) {
        let ty = self.check_expr(value);
        let key = name.to_string();
        let Some(var) = self.lookup(&key).cloned() else {
            self.ctx.type_error(
                name.span(),
                Code::UnknownName,
                format!("cannot find `{name}` in this kernel"),
                "declare it first with `let mut`",
            );
            return;
        };
        if !var.mutable {
            self.ctx.type_error(
                name.span(),
                Code::Immutable,
                format!("cannot assign twice to `{name}`"),
                format!("declare it `let mut {name}`"),
            );
            return;
        }
        if regs::same_but_layout(&var.ty, &ty) || var.ty.is_error() || ty.is_error() || var.ty == ty {
            // A layout change is legal here; a loop that carries the value checks it (C7).
            if let Some(v) = self.lookup_mut(&key) {
                v.ty = ty;
                v.assigned_at = Some(value.into());
            }
            return;
        }
        self.ctx.type_error(
            value,
            Code::MismatchedTypes,
            format!("`{name}` is {}, but this is {ty}", var.ty),
            "a variable keeps its dtype and shape",
        );
    }

    /// `for v in start..end { body }`, with the loop-carry rule (C7).
    fn check_for(&mut self, var: &syn::Ident, start: &Expr, end: &Expr, body: &Block) {
        for bound in [start, end] {
            let ty = self.check_expr(bound);
            scalar::expect_index(self, bound, &ty, "a loop bound");
        }
        let before = self.mutable_snapshot();
        self.scopes.push(HashMap::new());
        self.bind(var, Ty::Scalar(crate::types::DType::I32), false);
        self.check_loop_body(body);
        self.scopes.pop();
        regs::check_loop_carry(self, &before, body.span);
    }

    /// A loop's body, or one copy of an unrolled loop's: a block without a value.
    fn check_loop_body(&mut self, body: &Block) {
        let tail = self.check_block(body);
        if !matches!(tail, Ty::Unit | Ty::Error) {
            self.ctx.type_error(
                body.span,
                Code::BlockValue,
                "a loop body has no value",
                "end the body with a statement (`;`)",
            );
        }
    }

    /// The types of the mutable variables in scope, in declaration order.
    fn mutable_snapshot(&self) -> Vec<(String, Ty)> {
        let mut vars: Vec<(usize, String, Ty)> = Vec::new();
        for scope in &self.scopes {
            for (n, v) in scope.iter().filter(|(_, v)| v.mutable) {
                vars.retain(|(_, m, _)| m != n);
                vars.push((v.order, n.clone(), v.ty.clone()));
            }
        }
        vars.sort_by_key(|(order, _, _)| *order);
        vars.into_iter().map(|(_, n, t)| (n, t)).collect()
    }

    fn check_if(&mut self, cond: &Expr, then: &Block, otherwise: Option<&Block>) {
        let (t, o) = self.check_branches(cond, then, otherwise);
        for (t, span) in [(Some(t), then.span), (o, otherwise.map_or(then.span, |b| b.span))] {
            if let Some(t) = t {
                if !matches!(t, Ty::Unit | Ty::Error) {
                    self.ctx.type_error(
                        span,
                        Code::BlockValue,
                        "an `if` branch has no value",
                        "end the branch with a statement (`;`)",
                    );
                }
            }
        }
    }

    /// `if cond { a } else { b }` as a value: both branches end in a scalar, a register array or a
    /// tuple of them, of one type.
    fn check_if_value(&mut self, cond: &Expr, then: &Block, otherwise: &Block) -> Ty {
        let (mut t, o) = self.check_branches(cond, then, Some(otherwise));
        let mut o = o.unwrap_or(Ty::Error);
        if let Some(ty) = self.adopt_literal(then, &t, &o) {
            t = ty;
        } else if let Some(ty) = self.adopt_literal(otherwise, &o, &t) {
            o = ty;
        }
        let mut ok = true;
        for (ty, b) in [(&t, then), (&o, otherwise)] {
            let at = b.tail.as_deref().map_or(Loc::from(b.span), Loc::from);
            if matches!(ty, Ty::Unit) {
                self.ctx.type_error(
                    b.span,
                    Code::BlockValue,
                    "this branch of an `if` value has no value",
                    "end it with an expression",
                );
                ok = false;
            } else if !ty.is_plain_value() && ok {
                // (Once: the other branch is most likely the same kind of thing.)
                self.ctx.type_error(
                    at,
                    Code::IfTypes,
                    format!("an `if` value is a scalar, a register array or a tuple of them, not {ty}"),
                    "choose the index instead: `x.at(if c { 0 } else { 1 })`",
                );
                ok = false;
            }
        }
        if !ok || t.is_error() || o.is_error() {
            return Ty::Error;
        }
        if t != o {
            let at = otherwise.tail.as_deref().map_or(Loc::from(otherwise.span), Loc::from);
            let help = match &t {
                Ty::Regs(r) if regs::same_but_layout(&t, &o) => {
                    format!("give both branches one layout: `.to_layout(Layout::{})` on one of them", r.layout.name())
                }
                _ => "make both branches the same dtype, shape and layout".to_string(),
            };
            self.ctx.type_error(at, Code::IfTypes, format!("`if` and `else` have different types: {t} and {o}"), help);
            return Ty::Error;
        }
        t
    }

    /// `if c { 0 } else { n }` with `n: u32`: an untyped literal as one branch's value takes the
    /// other's scalar type, as it does beside `n` in `n + 0`. Returns the type it took.
    fn adopt_literal(&mut self, b: &Block, own: &Ty, other: &Ty) -> Option<Ty> {
        let (Some(tail), Ty::Scalar(d)) = (b.tail.as_deref(), other) else { return None };
        if own == other || !tail.is_untyped_literal() || !scalar::literal_fits(tail, *d) {
            return None;
        }
        let mut e = tail;
        loop {
            self.record(e, other.clone());
            match &e.kind {
                ExprKind::Unary { operand, .. } => e = operand,
                _ => return Some(other.clone()),
            }
        }
    }

    /// Checks an `if`'s condition and branches, and that a mutable name leaves both branches in
    /// the same layout; returns the branches' types.
    fn check_branches(&mut self, cond: &Expr, then: &Block, otherwise: Option<&Block>) -> (Ty, Option<Ty>) {
        let ty = self.check_expr(cond);
        if !matches!(ty, Ty::Scalar(crate::types::DType::Bool) | Ty::Error) {
            self.ctx.type_error(
                cond,
                Code::ScalarType,
                format!("an `if` condition is a bool, got {ty}"),
                "compare scalars: `if k == 0 { .. }`",
            );
        }
        let before = self.mutable_snapshot();
        let t = self.check_block(then);
        let after_then = self.mutable_snapshot();
        self.restore(&before);
        let o = otherwise.map(|b| self.check_block(b));
        let after_else = self.mutable_snapshot();
        for ((name, a), (_, b)) in after_then.iter().zip(&after_else) {
            if a != b && !a.is_error() && !b.is_error() {
                let span = otherwise.map_or(then.span, |b| b.span);
                self.ctx.type_error(
                    span,
                    Code::BranchesDisagree,
                    format!("`{name}` is {a} after one branch and {b} after the other"),
                    "make both branches leave it in the same layout",
                );
            }
        }
        (t, o)
    }

    fn restore(&mut self, snapshot: &[(String, Ty)]) {
        for (name, ty) in snapshot {
            if let Some(v) = self.lookup_mut(name) {
                v.ty = ty.clone();
            }
        }
    }

    /// A shape whose entries are compile-time constants.
    fn static_shape(&mut self, s: &ShapeExpr) -> Option<Vec<i64>> {
        let mut out = Vec::new();
        for d in &s.dims {
            let ty = self.check_expr(d);
            if ty.is_error() {
                return None;
            }
            match scalar::eval_const(self, d) {
                Some(v) if v > 0 => out.push(v),
                Some(v) => {
                    self.ctx.type_error(
                        d,
                        Code::Dimension,
                        format!("a dimension must be positive, got {v}"),
                        "shapes are positive compile-time integers",
                    );
                    return None;
                }
                None => {
                    self.ctx.type_error(d, Code::Dimension, "this dimension is not known at compile time", "tiles, buffers and register arrays have static shapes: use literals or consts (runtime dimensions like `M` only size global arrays)");
                    return None;
                }
            }
        }
        if out.is_empty() {
            self.ctx.type_error(s.span, Code::Dimension, "a shape needs at least one dimension", "write `[d0, d1]`");
            return None;
        }
        Some(out)
    }

    // ---- expressions --------------------------------------------------------------------------

    fn check_expr(&mut self, e: &Expr) -> Ty {
        let mut ty = self.infer(e);
        if !matches!(e.kind, ExprKind::Var(_)) && !regs::check_register_budget(self, &ty, e) {
            ty = Ty::Error;
        }
        self.record(e, ty)
    }

    fn infer(&mut self, e: &Expr) -> Ty {
        use ExprKind as K;
        match &e.kind {
            K::Invalid => Ty::Error,
            K::Int(..)
            | K::Float(..)
            | K::Bool(_)
            | K::Var(_)
            | K::Unary { .. }
            | K::Binary { .. }
            | K::ScalarCast { .. }
            | K::Tuple(_) => scalar::infer(self, e),
            K::If { cond, then, otherwise } => self.check_if_value(cond, then, otherwise),
            K::ProgramId(axis) | K::NumPrograms(axis) => scalar::check_grid_axis(self, axis),
            K::WarpgroupId | K::ClusterRank => Ty::Scalar(crate::types::DType::I32),
            K::GlobalTimer => Ty::Scalar(crate::types::DType::I64),
            K::DeviceId => devices::check_device_id(self, e),
            K::DeviceCount => devices::check_device_count(self, e),
            K::Remote { gmem, rank } => devices::check_remote(self, e, gmem, rank),
            K::Tile { gmem, index, shape } => memory::check_tile(self, gmem, index, shape.as_ref()),
            K::At { base, index } => memory::check_at(self, base, index),
            K::Slice { base, args } => memory::check_slice(self, base, args),
            K::Transpose { base, perm } => memory::check_transpose(self, base, perm.as_ref()),
            K::Load { src, layout } => acc::check_load(self, e, src, layout.as_ref()),
            K::Store { dst, value } => acc::check_store(self, dst, value),
            K::AtomicAdd { dst, value } => acc::check_atomic_add(self, dst, value),
            K::AccFromRegs(regs) => {
                let r = acc::check_from_regs(self, regs);
                if !r.is_error() {
                    self.ctx.error(e, crate::diag::Diag::PreinitOutsideRunState);
                }
                Ty::Error
            }
            K::Splat { dtype, value, shape } => regs::check_splat(self, dtype.as_ref(), value, shape),
            K::Iota { dtype, shape, axis } => regs::check_iota(self, dtype.as_ref(), shape, axis),
            K::Wgmma { acc, a, b, accumulate } => wgmma::check_wgmma(self, acc, a, b, accumulate.as_deref()),
            K::WgmmaWait(_) | K::CommitSmem | K::WaitSmemToGmem { .. } => Ty::Unit,
            K::Mma { acc, a, b } => mma::check_mma(self, acc, a, b),
            K::CopyGmemToSmem { src, dst, barrier, multicast } => {
                memory::check_copy_in(self, e, src, dst, barrier, *multicast)
            }
            K::CopySmemToGmem { src, dst, reduce } => memory::check_copy_out(self, e, src, dst, reduce.as_ref()),
            K::CopySmemToPeer { src, dst, barrier, rank } => {
                memory::check_copy_to_peer(self, e, src, dst, barrier, rank)
            }
            K::BarrierArrive { barrier, cluster } => memory::check_arrive(self, barrier, *cluster),
            K::BarrierWait(b, _) => memory::check_barrier_use(self, b),
            K::Semaphore { op, sems, index, end, count } => {
                semaphore::check_semaphore(self, *op, sems, (index, end.as_deref()), count.as_deref())
            }
            K::SetMaxRegisters(n) => alloc::check_set_max_registers(self, n),
            K::RunScoped { collective_axes, params, body } => match crate::syntax::inline::call_of(self.ctx, body) {
                // A call of a kernel function, inlined.
                Some(call) => call::check(self, call, body),
                None => alloc::check_run_scoped(self, e, collective_axes.as_ref(), params, body),
            },
            K::RunState { init, param, body } => alloc::check_run_state(self, init, param, body),
            K::Math { func, arg } => regs::check_math(self, e, *func, arg),
            K::Math2 { lhs, rhs, .. } => regs::check_elementwise(self, e, lhs, rhs),
            K::Fma { a, b, c } => regs::check_fma(self, e, a, b, c),
            K::Cast { value, dtype } => regs::check_cast(self, value, dtype),
            K::Bitcast { value, dtype } => regs::check_bitcast(self, value, dtype),
            K::Reduce { value, op, axis } => regs::check_reduce(self, value, *op, axis),
            K::Broadcast { value, shape, layout } => regs::check_broadcast(self, value, shape, layout),
            K::ToLayout { value, layout } => regs::check_to_layout(self, value, layout),
            K::LayoutCast { value, layout } => regs::check_layout_cast(self, value, layout),
        }
    }
}
