//! The code generator's state and its walk over statements.

use super::layout;
use super::value::Val;
use super::writer::{Class, Writer};
use crate::typeck::Ty;
use crate::types::{DType, Layout};
use std::collections::HashMap;
use tessel_ir::program::{Block, Expr, ExprKind, Program, Stmt, Target};

/// Per-thread registers computed once in the prologue.
pub struct Lanes {
    /// Thread index within the warpgroup, 0..128.
    pub tid: String,
    /// Warp within the warpgroup, 0..4.
    pub w: String,
    /// `lane >> 2` and `lane & 3`.
    pub g: String,
    pub t: String,
    /// `16 w + g` and `2 t`: the base of the WGMMA fragment.
    pub row16: String,
    pub t2: String,
    /// The warpgroup's index in the program.
    pub wg: String,
    /// True in thread 0 of each warpgroup: the thread that issues TMA copies and barrier arrivals.
    pub leader: String,
    /// True in thread 0 of the program.
    pub first: String,
}

/// A frame slot's value; mutable names remember the registers they were declared with, so that a
/// loop that changes a layout and changes it back writes into the same registers every iteration.
struct Binding {
    val: Val,
    home: Option<Val>,
}

pub struct Gen<'a> {
    pub w: Writer,
    pub prog: &'a Program,
    pub lanes: Lanes,
    /// The 1024-aligned shared address of the program's shared memory (`.b32`).
    pub smem_base: String,
    /// Runtime dimensions (`.b32`), in `Program::runtime_dims` order.
    pub dims: Vec<String>,
    /// Generic addresses of the tensor maps (`.b64`).
    pub tmaps: Vec<String>,
    /// Per barrier allocation: a `.b32` mask of the parity bits of its barriers (one bit per element).
    pub parity: HashMap<usize, String>,
    /// Where the body ended after the last warpgroup `bar.sync` (`sync::sync_warpgroup`): a
    /// second one with nothing between would add nothing.
    pub warpgroup_synced: Option<usize>,
    /// The value of each frame slot bound in the scopes being written.
    slots: Vec<Option<Binding>>,
    /// The slots each open scope bound, unbound when it closes.
    scopes: Vec<Vec<usize>>,
    /// Where the program was not what checking guarantees: internal errors, reported by `finish`.
    errors: Vec<String>,
}

impl<'a> Gen<'a> {
    pub fn new(prog: &'a Program, w: Writer, lanes: Lanes, smem_base: String) -> Self {
        Gen {
            w,
            prog,
            lanes,
            smem_base,
            dims: Vec::new(),
            tmaps: Vec::new(),
            parity: HashMap::new(),
            warpgroup_synced: None,
            slots: (0..prog.slots).map(|_| None).collect(),
            scopes: vec![Vec::new()],
            errors: Vec::new(),
        }
    }

    /// Records that the program is not what checking guarantees (an internal error), and gives
    /// the value the writer goes on with.
    pub fn internal(&mut self, what: impl Into<String>) -> Val {
        self.errors.push(what.into());
        Val::Unit
    }

    /// Every internal error met, as one compile error at `at`.
    pub fn finish(&self, at: proc_macro2::Span) -> Result<(), syn::Error> {
        let mut errors = self.errors.iter().map(|what| crate::codes::internal_error(at, format!("PTX: {what}")));
        let Some(mut all) = errors.next() else { return Ok(()) };
        errors.for_each(|e| all.combine(e));
        Err(all)
    }

    pub fn bind(&mut self, slot: usize, val: Val, mutable: bool) {
        let home = mutable.then(|| val.clone());
        match self.slots.get_mut(slot) {
            Some(s) => *s = Some(Binding { val, home }),
            None => {
                self.internal(format!("frame slot {slot} of {}", self.prog.slots));
                return;
            }
        }
        if let Some(scope) = self.scopes.last_mut() {
            scope.push(slot);
        }
    }

    pub fn lookup(&mut self, slot: usize) -> Val {
        match self.slots.get(slot).and_then(Option::as_ref) {
            Some(b) => b.val.clone(),
            None => self.internal(format!("frame slot {slot} read before it is bound")),
        }
    }

    pub fn push_scope(&mut self) {
        self.scopes.push(Vec::new());
    }

    pub fn pop_scope(&mut self) {
        for slot in self.scopes.pop().unwrap_or_default() {
            self.slots[slot] = None;
        }
    }

    pub fn block(&mut self, b: &Block) -> Val {
        self.push_scope();
        for s in &b.stmts {
            self.stmt(s);
        }
        let v = match &b.tail {
            Some(t) => self.expr(t),
            None => Val::Unit,
        };
        self.pop_scope();
        v
    }

    fn stmt(&mut self, s: &Stmt) {
        match s {
            Stmt::Let { targets, init } => {
                let v = self.expr(init);
                let v = self.materialize(v, &init.ty);
                // Assignments write into a mutable name's registers, so a mutable name gets registers
                // of its own, and so does a name bound to another name or to any value that shares a
                // register with a mutable name (`let v = k as i32;` of an i32 `k` is k's register).
                let owns = targets.iter().any(|t| t.mutable)
                    || matches!(init.kind, ExprKind::Local(_) | ExprKind::Const(_) | ExprKind::Dim(_))
                    || self.shares_a_home(&v);
                let v = if owns { self.fresh_copy(v) } else { v };
                match (targets.as_slice(), v) {
                    ([t], v) => self.bind_target(*t, v),
                    (many, Val::Tuple(parts)) => {
                        for (t, p) in many.iter().zip(parts) {
                            self.bind_target(*t, p);
                        }
                    }
                    _ => {
                        self.internal("a `let` pattern that does not match its value");
                    }
                }
            }
            Stmt::Assign { slot, value } => {
                let v = self.expr(value);
                let v = self.materialize(v, &value.ty);
                self.assign(*slot, v);
            }
            Stmt::For { slot, start, end, body } => self.for_loop(*slot, start, end, body),
            Stmt::If { cond, then, otherwise } => self.if_stmt(cond, then, otherwise.as_ref()),
            Stmt::Block(b) => {
                self.block(b);
            }
            Stmt::Expr(e) => {
                self.expr(e);
            }
        }
    }

    fn bind_target(&mut self, t: Target, v: Val) {
        if let Some(slot) = t.slot {
            self.bind(slot, v, t.mutable);
        }
    }

    /// Writes a new value into a mutable name: into its home registers when the layout matches.
    fn assign(&mut self, slot: usize, v: Val) {
        let Some(Some(binding)) = self.slots.get(slot) else {
            self.internal(format!("an assignment to frame slot {slot}, which is not bound"));
            return;
        };
        let home = binding.home.clone();
        match (&home, &v) {
            (Some(Val::Scalar { reg: h, dtype }), Val::Scalar { reg, .. }) => {
                let (h, reg, dtype) = (h.clone(), reg.clone(), *dtype);
                self.mov(dtype, &h, &reg);
                self.set_binding(slot, home.clone().unwrap_or(Val::Unit));
            }
            (Some(Val::Regs { regs: h, ty: ht }), Val::Regs { regs, ty }) if ht.layout == ty.layout => {
                for (d, s) in h.clone().iter().zip(regs) {
                    self.mov(ty.dtype, d, s);
                }
                self.set_binding(slot, home.clone().unwrap_or(Val::Unit));
            }
            _ => self.set_binding(slot, v),
        }
    }

    fn set_binding(&mut self, slot: usize, v: Val) {
        if let Some(Some(b)) = self.slots.get_mut(slot) {
            b.val = v;
        }
    }

    /// Whether `v` holds a register that is a mutable name's home (which assignments overwrite).
    fn shares_a_home(&self, v: &Val) -> bool {
        let mine = v.registers();
        let homes = self.slots.iter().flatten().filter_map(|b| b.home.as_ref());
        !mine.is_empty() && homes.flat_map(Val::registers).any(|r| mine.contains(&r))
    }

    /// The same value in new registers (scalars and register arrays; tuples part by part).
    fn fresh_copy(&mut self, v: Val) -> Val {
        match v {
            Val::Scalar { reg, dtype } => {
                let r = self.w.reg_for(dtype);
                self.mov(dtype, &r, &reg);
                Val::Scalar { reg: r, dtype }
            }
            Val::Regs { regs, ty } => {
                let regs = regs
                    .iter()
                    .map(|s| {
                        let r = self.w.reg_for(ty.dtype);
                        self.mov(ty.dtype, &r, s);
                        r
                    })
                    .collect();
                Val::Regs { regs, ty }
            }
            Val::Tuple(parts) => Val::Tuple(parts.into_iter().map(|p| self.fresh_copy(p)).collect()),
            other => other,
        }
    }

    /// Gives constants a register (values bound to names are always registers), the parts of a
    /// tuple too: `let (mut k0, mut k1) = (0, steps);` binds `k0` to a register that assignments
    /// under an `if` write into (bound to the constant, the assignment would only rebind the name,
    /// and the new value would leak out of the branch).
    pub fn materialize(&mut self, v: Val, ty: &Ty) -> Val {
        match (v, ty) {
            (Val::Tuple(parts), Ty::Tuple(tys)) if parts.len() == tys.len() => {
                Val::Tuple(parts.into_iter().zip(tys).map(|(p, t)| self.materialize(p, t)).collect())
            }
            (Val::Const(c), Ty::Scalar(d)) => {
                let reg = self.const_reg(*d, c as f64);
                Val::Scalar { reg, dtype: *d }
            }
            (Val::Const(c), _) => {
                let reg = self.const_reg(DType::I32, c as f64);
                Val::Scalar { reg, dtype: DType::I32 }
            }
            (v, _) => v,
        }
    }

    /// A register holding a constant of `dtype`.
    pub fn const_reg(&mut self, dtype: DType, value: f64) -> String {
        let reg = self.w.reg_for(dtype);
        let text = super::scalar::literal(dtype, value);
        match Class::of(dtype) {
            Class::Pred => self.w.ins(format!("setp.ne.u32 {reg}, {}, 0", if value != 0.0 { 1 } else { 0 })),
            Class::B16 => self.w.ins(format!("mov.b16 {reg}, {text}")),
            Class::B32 => self.w.ins(format!("mov.b32 {reg}, {text}")),
            Class::B64 => self.w.ins(format!("mov.b64 {reg}, {text}")),
            Class::F32 => self.w.ins(format!("mov.f32 {reg}, {text}")),
        }
        reg
    }

    pub fn mov(&mut self, dtype: DType, dst: &str, src: &str) {
        let suffix = match Class::of(dtype) {
            Class::Pred => "pred",
            Class::B16 => "b16",
            Class::B32 => "b32",
            Class::B64 => "b64",
            Class::F32 => "f32",
        };
        self.w.ins(format!("mov.{suffix} {dst}, {src}"));
    }

    fn for_loop(&mut self, slot: usize, start: &Expr, end: &Expr, body: &Block) {
        let s = self.scalar_reg(start);
        let e = self.scalar_reg(end);
        let i = self.w.reg(Class::B32);
        self.w.ins(format!("mov.b32 {i}, {s}"));
        let (top, exit) = (self.w.label("loop"), self.w.label("done"));
        let p = self.w.reg(Class::Pred);
        self.w.put_label(&top);
        self.w.ins(format!("setp.ge.s32 {p}, {i}, {e}"));
        self.w.ins(format!("@{p} bra {exit}"));
        self.push_scope();
        self.bind(slot, Val::Scalar { reg: i.clone(), dtype: DType::I32 }, false);
        self.block(body);
        self.pop_scope();
        self.w.ins(format!("add.s32 {i}, {i}, 1"));
        self.w.ins(format!("bra.uni {top}"));
        self.w.put_label(&exit);
    }

    fn if_stmt(&mut self, cond: &Expr, then: &Block, otherwise: Option<&Block>) {
        let p = match self.condition(cond) {
            Err(known) => {
                // A known condition (a kernel's constant switch) keeps only its branch.
                match (known, otherwise) {
                    (true, _) => self.block(then),
                    (false, Some(o)) => self.block(o),
                    (false, None) => Val::Unit,
                };
                return;
            }
            Ok(p) => p,
        };
        let (else_l, end_l) = (self.w.label("else"), self.w.label("endif"));
        self.w.ins(format!("@!{p} bra {else_l}"));
        self.block(then);
        self.w.ins(format!("bra.uni {end_l}"));
        self.w.put_label(&else_l);
        if let Some(o) = otherwise {
            self.block(o);
        }
        self.w.put_label(&end_l);
    }

    /// `if c { a } else { b }` as a value: the branch taken leaves its value in registers of the
    /// `if`'s own (the first branch's value copied, the second's moved into the copy).
    pub fn if_value(&mut self, e: &Expr, cond: &Expr, then: &Block, otherwise: &Block) -> Val {
        let p = match self.condition(cond) {
            Err(known) => return self.block(if known { then } else { otherwise }),
            Ok(p) => p,
        };
        let ty = e.ty.clone();
        let (else_l, end_l) = (self.w.label("else"), self.w.label("endif"));
        self.w.ins(format!("@!{p} bra {else_l}"));
        let v = self.block(then);
        let v = self.materialize(v, &ty);
        let value = self.fresh_copy(v);
        self.w.ins(format!("bra.uni {end_l}"));
        self.w.put_label(&else_l);
        let v = self.block(otherwise);
        let v = self.materialize(v, &ty);
        self.move_into(&value, &v);
        self.w.put_label(&end_l);
        value
    }

    /// An `if`'s condition in a predicate register, or `Err` with its value when it is known at
    /// compile time.
    fn condition(&mut self, cond: &Expr) -> Result<String, bool> {
        match self.expr(cond) {
            Val::Const(known) => Err(known != 0),
            c => match self.materialize(c, &Ty::Scalar(DType::Bool)) {
                Val::Scalar { reg, .. } => Ok(reg),
                other => {
                    self.internal(format!("a condition that is {other:?}"));
                    Err(false)
                }
            },
        }
    }

    /// Moves a value into registers holding one of the same type (scalars, arrays, tuples).
    fn move_into(&mut self, dst: &Val, src: &Val) {
        match (dst, src) {
            (Val::Scalar { reg: d, dtype }, Val::Scalar { reg: s, .. }) => self.mov(*dtype, d, s),
            (Val::Regs { regs: d, ty }, Val::Regs { regs: s, .. }) => {
                for (d, s) in d.iter().zip(s) {
                    self.mov(ty.dtype, d, s);
                }
            }
            (Val::Tuple(d), Val::Tuple(s)) => d.iter().zip(s).for_each(|(d, s)| self.move_into(d, s)),
            (Val::Unit, Val::Unit) => {}
            (d, s) => {
                self.internal(format!("an `if` whose branches give {d:?} and {s:?}"));
            }
        }
    }

    /// An integer scalar expression in a `.b32` register.
    pub fn scalar_reg(&mut self, e: &Expr) -> String {
        let v = self.expr(e);
        match self.materialize(v, &Ty::Scalar(DType::I32)) {
            Val::Scalar { reg, .. } => reg,
            other => {
                self.internal(format!("an integer scalar that is {other:?}"));
                self.const_reg(DType::I32, 0.0)
            }
        }
    }

    /// `dst = src / d` for an unsigned register and a positive constant. A power of two is a shift:
    /// the driver's compiler emits a full division for `div.u32` even by an immediate 64 (seen in
    /// the H200's SASS of the GEMM epilogue).
    pub fn udiv_const(&mut self, dst: &str, src: &str, d: i64) {
        match power_of_two(d) {
            Some(bits) => self.w.ins(format!("shr.u32 {dst}, {src}, {bits}")),
            None => self.w.ins(format!("div.u32 {dst}, {src}, {d}")),
        }
    }

    /// `dst = src % d` for an unsigned register and a positive constant (a mask for a power of two).
    pub fn urem_const(&mut self, dst: &str, src: &str, d: i64) {
        match power_of_two(d) {
            Some(_) => self.w.ins(format!("and.b32 {dst}, {src}, {}", d - 1)),
            None => self.w.ins(format!("rem.u32 {dst}, {src}, {d}")),
        }
    }

    /// `16 * (w % m_warps) + g`: the first row of this warp's mma block.
    pub fn warp_row_base(&mut self, m_warps: i64) -> String {
        let r = self.w.reg(Class::B32);
        let w = self.lanes.w.clone();
        self.urem_const(&r, &w, m_warps);
        self.w.ins(format!("mad.lo.u32 {r}, {r}, 16, {}", self.lanes.g));
        r
    }

    /// `(w / m_warps) * n_per + mult * t`: the first column of this warp's mma accumulator block.
    pub fn warp_col_base(&mut self, m_warps: i64, n_per: i64, mult: i64) -> String {
        let r = self.w.reg(Class::B32);
        let t = self.lane_times_t(mult);
        let w = self.lanes.w.clone();
        self.udiv_const(&r, &w, m_warps);
        self.w.ins(format!("mad.lo.u32 {r}, {r}, {n_per}, {t}"));
        r
    }

    /// `mult * t`.
    pub fn lane_times_t(&mut self, mult: i64) -> String {
        let r = self.w.reg(Class::B32);
        self.w.ins(format!("mul.lo.u32 {r}, {}, {mult}", self.lanes.t));
        r
    }

    /// The elements this thread holds of an array.
    pub fn fragment(&mut self, layout: Layout, shape: &[i64], dtype: DType) -> layout::Frag {
        layout::fragment(self, layout, shape, dtype)
    }
}

/// `log2 d` when `d` is a positive power of two.
fn power_of_two(d: i64) -> Option<u32> {
    (d > 0 && d & (d - 1) == 0).then(|| d.trailing_zeros())
}
