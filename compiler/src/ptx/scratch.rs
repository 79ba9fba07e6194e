//! Per-warpgroup scratch shared memory, for the register ops that move data between threads:
//! `to_layout` between two 2-D layouts and column reductions (`x.sum(0)`) across warps.
//!
//! Scratch lives after the program's allocations, so it never overlaps a live buffer:
//! `smem_base + align_up(Facts::smem_bytes, 1024) + warpgroup * per_warpgroup`, where
//! `per_warpgroup` is the largest array any such op of the kernel moves, rounded up to 128 bytes.
//! Each warpgroup has its own, so warpgroups never wait for each other (`bar.sync 1 + wg, 128`).

use super::gen::Gen;
use super::walk;
use super::writer::Class;
use crate::syntax::ast::{ExprKind, Kernel, Layout};
use crate::typeck::{Facts, Ty};
use crate::types::DType;

/// Where scratch starts: the program's allocations rounded up to 1024 bytes.
pub fn offset(facts: &Facts) -> u32 {
    align_up(facts.smem_bytes as u32, 1024)
}

pub fn align_up(x: u32, to: u32) -> u32 {
    x.div_ceil(to) * to
}

/// Bytes of scratch each warpgroup needs (0 when no op of the kernel needs any).
pub fn per_warpgroup(kernel: &Kernel, facts: &Facts) -> u32 {
    let mut most = 0u32;
    walk::for_each_expr(kernel, &mut |e| {
        let need = match &e.kind {
            ExprKind::ToLayout { value, .. } => match (ty(facts, value.id), ty(facts, e.id)) {
                (Some(Ty::Regs(from)), Some(Ty::Regs(to))) if moves_data(from.layout, to.layout) => {
                    from.shape.iter().product::<i64>() as u32 * elem_bytes(from.dtype)
                }
                _ => 0,
            },
            ExprKind::Reduce { value, axis, .. } if axis.value == 0 => match ty(facts, value.id) {
                Some(Ty::Regs(r)) if r.layout == Layout::Wgmma => column_partials_bytes(r.dtype, r.shape[1]),
                _ => 0,
            },
            _ => 0,
        };
        most = most.max(need);
    });
    align_up(most, 128)
}

fn ty(facts: &Facts, id: u32) -> Option<&Ty> {
    facts.types.get(id as usize)
}

/// Whether `to_layout` between these layouts goes through scratch: every change but the identity
/// and a splat (which every thread already holds whole).
pub fn moves_data(from: Layout, to: Layout) -> bool {
    from != to && from != Layout::Splat
}

/// Scratch of a column reduction of an [M, N] array: one partial per warp and column, in the type
/// the reduction computes in (f32 or a 32-bit integer; 64-bit integers take 8 bytes).
pub fn column_partials_bytes(dtype: DType, n: i64) -> u32 {
    4 * n as u32 * work_bytes(dtype)
}

pub fn work_bytes(dtype: DType) -> u32 {
    if matches!(dtype, DType::I64 | DType::U64) {
        8
    } else {
        4
    }
}

/// Bytes of one element in scratch (`i4` takes a byte, like in `ptx::memory`).
pub fn elem_bytes(dtype: DType) -> u32 {
    (dtype.bits() / 8).max(1)
}

/// The `ld`/`st` type of one element in scratch; the register is that of `Class::of(dtype)` (bools
/// go through a `.b32` 0/1), matching how `ptx::memory` reads and writes arrays.
pub fn mem_type(d: DType) -> &'static str {
    match d {
        DType::F32 | DType::Tf32 => "f32",
        DType::Bf16 | DType::F16 => "b16",
        DType::F8E4M3 | DType::F8E5M2 | DType::U8 | DType::Bool => "u8",
        DType::I8 | DType::I4 => "s8",
        DType::I16 => "s16",
        DType::U16 => "u16",
        DType::I32 | DType::U32 => "b32",
        DType::I64 | DType::U64 => "b64",
    }
}

/// A register with the shared address of this warpgroup's scratch.
pub fn base(g: &mut Gen) -> String {
    let per = per_warpgroup(g.kernel, g.facts);
    let r = g.w.reg(Class::B32);
    g.w.ins(format!("mad.lo.u32 {r}, {}, {per}, {}", g.lanes.wg, g.smem_base));
    g.w.ins(format!("add.u32 {r}, {r}, {}", offset(g.facts)));
    r
}

/// Stores one element at `[addr + off]` (bools as a 0/1 byte).
pub fn store(g: &mut Gen, dtype: DType, addr: &str, off: i64, reg: &str, guard: &str) {
    let src = if dtype == DType::Bool {
        let b = g.w.reg(Class::B32);
        g.w.ins(format!("selp.u32 {b}, 1, 0, {reg}"));
        b
    } else {
        reg.to_string()
    };
    g.w.ins(format!("{guard}st.shared.{} [{addr}+{off}], {src}", mem_type(dtype)));
}

/// Loads one element from `[addr + off]` into a fresh register.
pub fn load(g: &mut Gen, dtype: DType, addr: &str, off: i64, guard: &str) -> String {
    let r = g.w.reg_for(dtype);
    let target = if dtype == DType::Bool { g.w.reg(Class::B32) } else { r.clone() };
    g.w.ins(format!("{guard}ld.shared.{} {target}, [{addr}+{off}]", mem_type(dtype)));
    if dtype == DType::Bool {
        g.w.ins(format!("setp.ne.u32 {r}, {target}, 0"));
    }
    r
}
