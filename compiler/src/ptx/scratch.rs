//! Addressing the per-warpgroup scratch shared memory that `typeck::scratch` sized: the register
//! ops that move data between threads (`to_layout`, column reductions) store and load through it.
//!
//! A warpgroup's area is `smem_base + align_up(Program::smem_bytes, 1024) + warpgroup *
//! Program::scratch_bytes`, after the program's allocations, so it never overlaps a live buffer;
//! each warpgroup has its own, so warpgroups never wait for each other (`bar.sync 1 + wg, 128`).

use super::gen::Gen;
use super::writer::Class;
use crate::types::DType;

use super::memory::mem_type;

/// A register with the shared address of this warpgroup's scratch.
pub fn base(g: &mut Gen) -> String {
    let per = g.prog.scratch_bytes;
    let r = g.w.reg(Class::B32);
    g.w.ins(format!("mad.lo.u32 {r}, {}, {per}, {}", g.lanes.wg, g.smem_base));
    g.w.ins(format!("add.u32 {r}, {r}, {}", crate::typeck::scratch::offset(g.prog.smem_bytes)));
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
