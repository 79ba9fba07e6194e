//! Addressing the per-warpgroup scratch shared memory that `typeck::scratch` sized: the register
//! ops that move data between threads (`to_layout`, column reductions) store and load through it.
//!
//! A warpgroup's area is `smem_base + align_up(Facts::smem_bytes, 1024) + warpgroup *
//! Facts::scratch_bytes`, after the program's allocations, so it never overlaps a live buffer;
//! each warpgroup has its own, so warpgroups never wait for each other (`bar.sync 1 + wg, 128`).

use super::gen::Gen;
use super::writer::Class;
use crate::types::DType;

pub use crate::typeck::scratch::{elem_bytes, work_bytes};

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
    let per = g.facts.scratch_bytes;
    let r = g.w.reg(Class::B32);
    g.w.ins(format!("mad.lo.u32 {r}, {}, {per}, {}", g.lanes.wg, g.smem_base));
    g.w.ins(format!("add.u32 {r}, {r}, {}", crate::typeck::scratch::offset(g.facts.smem_bytes)));
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
