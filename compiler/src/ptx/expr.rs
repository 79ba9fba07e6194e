//! Expressions: the dispatch from each `ExprKind` to the `emit_<op>` function of its concern.

use super::gen::Gen;
use super::value::Val;
use super::{atomic, devices, memory, mma, regs, scalar, semaphore, sync, tma, wgmma};
use crate::typeck::Ty;
use crate::types::DType;
use tessel_ir::ops::{BinOp, UnOp};
use tessel_ir::program::{Expr, ExprKind, LitValue, Literal};

impl Gen<'_> {
    pub fn expr(&mut self, e: &Expr) -> Val {
        use ExprKind as K;
        match &e.kind {
            K::Lit(lit) => self.literal(e, *lit),
            K::Local(slot) => self.lookup(*slot),
            K::Const(c) => Val::Const(*c),
            K::Dim(i) => match self.dims.get(*i) {
                Some(r) => Val::Scalar { reg: r.clone(), dtype: DType::I32 },
                None => self.internal(format!("runtime dimension {i} of {}", self.dims.len())),
            },
            K::Tuple(items) => Val::Tuple(items.iter().map(|i| self.expr(i)).collect()),
            K::If { cond, then, otherwise } => self.if_value(e, cond, then, otherwise),
            K::Unary { op, operand } => self.unary(e, *op, operand),
            K::Binary { op, lhs, rhs } => self.binary(e, *op, lhs, rhs),
            K::ScalarCast { value, dtype } => {
                let from = match &value.ty {
                    Ty::Scalar(d) => *d,
                    _ => DType::I32,
                };
                let v = self.expr(value);
                let v = self.materialize(v, &Ty::Scalar(from));
                match v {
                    Val::Scalar { reg, .. } => {
                        Val::Scalar { reg: scalar::convert(self, from, *dtype, &reg), dtype: *dtype }
                    }
                    other => other,
                }
            }
            K::ProgramId(axis) => self.special(&format!("%ctaid.{}", xyz(*axis))),
            K::NumPrograms(axis) => self.special(&format!("%nctaid.{}", xyz(*axis))),
            K::WarpgroupId => Val::Scalar { reg: self.lanes.wg.clone(), dtype: DType::I32 },
            K::ClusterRank => self.special("%cluster_ctarank"),
            K::GlobalTimer => {
                let r = self.w.reg(super::writer::Class::B64);
                self.w.ins(format!("mov.u64 {r}, %globaltimer"));
                Val::Scalar { reg: r, dtype: DType::I64 }
            }
            K::DeviceId => devices::emit_device_id(self),
            K::Remote { gmem, rank } => devices::emit_remote(self, gmem, rank),
            K::Tile { gmem, index, .. } => memory::emit_tile(self, gmem, index),
            K::At { base, index } => memory::emit_at(self, base, index),
            K::Slice { base, starts, .. } => memory::emit_slice(self, e, base, starts),
            K::Transpose { base, .. } => memory::emit_transpose(self, e, base),
            K::Load { src, .. } => memory::emit_load(self, e, src),
            K::Store { dst, value } => memory::emit_store(self, dst, value),
            K::AtomicAdd { dst, value } => atomic::emit_atomic_add(self, dst, value),
            K::Splat { value, .. } => regs::emit_splat(self, e, value),
            K::Iota { axis, .. } => regs::emit_iota(self, e, *axis as u32),
            K::Wgmma { acc, a, b, accumulate } => wgmma::emit_wgmma(self, acc, a, b, accumulate.as_deref()),
            K::WgmmaWait(n) => {
                self.w.ins(format!("wgmma.wait_group.sync.aligned {n}"));
                Val::Unit
            }
            K::Mma { acc, a, b } => mma::emit_mma(self, e, acc, a, b),
            K::CopyIn { src, dst, barrier, multicast, map } => {
                tma::emit_load(self, *map, src, dst, barrier, *multicast)
            }
            K::CopyOut { src, dst, map, reduce } => tma::emit_store(self, *map, src, dst, *reduce),
            K::CopyToPeer { src, dst, barrier, rank } => tma::emit_to_peer(self, src, dst, barrier, rank),
            K::CommitSmem => sync::emit_commit_smem(self),
            K::WaitSmemToGmem { n, complete } => sync::emit_wait_smem_to_gmem(self, *n, *complete),
            K::Arrive { barrier, cluster } => sync::emit_arrive(self, barrier, *cluster),
            K::Wait { barrier, waiters } => sync::emit_wait(self, barrier, *waiters),
            K::Semaphore { op, sems, index, end, count } => {
                semaphore::emit_semaphore(self, *op, sems, (index, end.as_deref()), count.as_deref())
            }
            K::SetMaxRegisters(n) => sync::emit_set_max_registers(self, *n),
            K::RunScoped { allocs, body, sync_entry, sync_exit, sync_cluster, .. } => {
                sync::emit_run_scoped(self, allocs, body, [*sync_entry, *sync_exit, *sync_cluster])
            }
            K::RunState { init, acc, slot, body } => sync::emit_run_state(self, init, acc, *slot, body),
            K::Math { func, arg } => regs::emit_math(self, e, *func, arg),
            K::Math2 { func, lhs, rhs } => regs::emit_math2(self, e, *func, lhs, rhs),
            K::Fma(operands) => {
                let [a, b, c] = &**operands;
                regs::emit_fma(self, e, [a, b, c])
            }
            K::Cast { value, dtype } => regs::emit_cast(self, e, value, *dtype),
            K::Bitcast { value, dtype } => regs::emit_bitcast(self, value, *dtype),
            K::Reduce { value, op, axis } => regs::emit_reduce(self, e, value, *op, *axis as u32),
            K::Broadcast { value, .. } => regs::emit_broadcast(self, e, value),
            K::ToLayout(value) => regs::emit_to_layout(self, e, value),
            K::LayoutCast(value) => regs::emit_layout_cast(self, e, value),
        }
    }

    /// A literal: an `i32` integer stays a constant until its use decides (an immediate, or a
    /// register of the dtype the use needs); others are registers of their type.
    fn literal(&mut self, e: &Expr, lit: Literal) -> Val {
        match (lit.value, &e.ty) {
            (LitValue::Int(v), Ty::Scalar(d)) if *d != DType::I32 => {
                Val::Scalar { reg: self.const_reg(*d, v as f64), dtype: *d }
            }
            (LitValue::Int(v), _) => Val::Const(v),
            (LitValue::Float(v), ty) => {
                let d = match ty {
                    Ty::Scalar(d) => *d,
                    _ => DType::F32,
                };
                Val::Scalar { reg: self.const_reg(d, v), dtype: d }
            }
            (LitValue::Bool(b), _) => {
                Val::Scalar { reg: self.const_reg(DType::Bool, b as i64 as f64), dtype: DType::Bool }
            }
        }
    }

    fn special(&mut self, name: &str) -> Val {
        let r = self.w.reg(super::writer::Class::B32);
        self.w.ins(format!("mov.u32 {r}, {name}"));
        Val::Scalar { reg: r, dtype: DType::I32 }
    }

    fn unary(&mut self, e: &Expr, op: UnOp, operand: &Expr) -> Val {
        let v = self.expr(operand);
        match (v, &e.ty) {
            (Val::Const(c), ty) if op == UnOp::Neg => {
                let width = match ty {
                    Ty::Scalar(d) => *d,
                    _ => DType::I64,
                };
                Val::Const(width.wrap(c.wrapping_neg()))
            }
            (Val::Regs { regs, ty }, _) => regs::emit_unary(self, op, regs, ty),
            (v, ty) => match self.materialize(v, ty) {
                Val::Scalar { reg, dtype } => scalar::unary(self, op, dtype, &reg),
                other => other,
            },
        }
    }

    fn binary(&mut self, e: &Expr, op: BinOp, lhs: &Expr, rhs: &Expr) -> Val {
        if matches!(&e.ty, Ty::Regs(_)) {
            return regs::emit_binary(self, e, op, lhs, rhs);
        }
        use BinOp::{And, Or};
        let dtype = scalar::operand_dtype(lhs, rhs);
        let a = self.scalar_operand(lhs, dtype);
        // A known left side decides `&&` / `||` (or leaves the right side), as in Rust: a kernel's
        // constant switches (`if CAUSAL == 1 && ..`) then leave no code behind.
        match (op, &a) {
            (And, Val::Const(0)) => return Val::Const(0),
            (Or, Val::Const(x)) if *x != 0 => return Val::Const(1),
            (And | Or, Val::Const(_)) => return self.scalar_operand(rhs, dtype),
            _ => {}
        }
        let b = self.scalar_operand(rhs, dtype);
        if let (Val::Const(x), Val::Const(y)) = (&a, &b) {
            if let Some(v) = scalar::fold(op, *x, *y) {
                // Wrapped to the operands' width, as the instruction (and the interpreter) would.
                return Val::Const(dtype.wrap(v));
            }
            if let Some(v) = scalar::fold_comparison(op, dtype, *x, *y) {
                return Val::Const(v as i64);
            }
        }
        let Some(ra) = self.scalar_in(a, dtype) else {
            return self.internal(format!("a scalar {op:?} of a non-scalar"));
        };
        // An integer constant on the right stays an immediate instead of a register filled by a
        // `mov` (one instruction less). Whether the driver strength-reduces a division by the
        // immediate was not measured; with the divisor in a register it did not (the H200's SASS
        // of `div.u32` by 64 and of the stage index pipelines once computed as `step % STAGES`),
        // hence `udiv_const` for powers of two and the counted stage of pipelines.
        if let Val::Const(c) = b {
            let wide = matches!(dtype, DType::I32 | DType::U32 | DType::I64 | DType::U64);
            if wide && (c >= 0 || !dtype.is_unsigned()) {
                let imm = scalar::literal(dtype, c as f64);
                return scalar::binary(self, op, dtype, &ra, &imm);
            }
        }
        match self.scalar_in(b, dtype) {
            Some(rb) => scalar::binary(self, op, dtype, &ra, &rb),
            None => self.internal(format!("a scalar {op:?} of a non-scalar")),
        }
    }

    /// An operand of a scalar operation computed in `dtype`, not yet in a register of it (pass it
    /// to `scalar_in`); a float literal the lowering gave `dtype` is written in it directly
    /// (`scalar::adopted_float`).
    pub fn scalar_operand(&mut self, e: &Expr, dtype: DType) -> Val {
        match scalar::adopted_float(e, dtype) {
            Some(v) => Val::Scalar { reg: self.const_reg(dtype, v), dtype },
            None => self.expr(e),
        }
    }

    /// A scalar operand in a register of `dtype`: a constant materialized, any other scalar
    /// converted from its own dtype (a no-op when it has `dtype` already); `None` if not a scalar.
    pub fn scalar_in(&mut self, v: Val, dtype: DType) -> Option<String> {
        match self.materialize(v, &Ty::Scalar(dtype)) {
            Val::Scalar { reg, dtype: from } => Some(scalar::convert(self, from, dtype, &reg)),
            _ => None,
        }
    }

    /// An operand of a scalar operation computed in `dtype`, in a register of it (`scalar_operand`,
    /// then `scalar_in`).
    pub fn scalar_arg(&mut self, e: &Expr, dtype: DType) -> Option<String> {
        let v = self.scalar_operand(e, dtype);
        self.scalar_in(v, dtype)
    }
}

fn xyz(axis: usize) -> char {
    match axis {
        0 => 'x',
        1 => 'y',
        _ => 'z',
    }
}
