//! `ptx`: PTX text for `sm_90a` from a kernel's program (`tessel_ir::Program`): the writer reads
//! the program and nothing else.
//!
//! # The kernel ABI (what the launch wrapper in `host` passes)
//! The entry is named after the kernel function. Its parameters, in the order `Program::abi`
//! gives:
//! 1. each kernel parameter in declaration order: a `Gmem`/`GmemMut` is `.param .u64 <name>` (the
//!    buffer's global address); a scalar is `.param .<type> <name>` (`f32` -> `.f32`, `i32` -> `.s32`,
//!    `u32` -> `.u32`, `i64` -> `.s64`, `u64` -> `.u64`);
//! 2. each runtime dimension in `Program::runtime_dims` order: `.param .s32 dim_<NAME>`;
//! 3. each tensor map in `Program::tensor_maps` order: `.param .align 64 .b8 tmap_<i>[128]` (by value).
//!
//! A program is `128 * warpgroups` threads (`.reqntid`); the grid comes from the attribute's grid
//! expressions; dynamic shared memory is `Program::dynamic_smem_bytes`: the program's allocations
//! (`Program::smem_bytes`, rounded up to 1024), then each warpgroup's scratch for layout conversions and
//! column reductions (`Program::scratch_bytes` each), plus `typeck::scratch::SMEM_SLACK` (the base is
//! rounded up to 1024 at run time so swizzled buffers are 1024-aligned). A kernel with a cluster carries
//! `.reqnctapercluster`, so a plain launch forms clusters.
//!
//! The writer cannot fail on a kernel that passed checking: where the program is not what checking
//! guarantees, the writer records an internal error (`Gen::internal`), and `emit` returns every
//! such error instead of incomplete PTX.

mod atomic;
mod devices;
mod expr;
mod gen;
mod gmem_pairs;
mod gmem_quads;
mod gmem_walk;
mod layout;
mod memory;
mod mma;
mod reduce;
mod regs;
mod relayout;
mod scalar;
mod scratch;
mod semaphore;
mod smem_walk;
mod stmatrix;
mod sync;
mod tma;
mod value;
mod wgmma;
mod wgmma_a8;
mod writer;

use crate::types::DType;
use gen::{Gen, Lanes};
use std::fmt::Write as _;
use tessel_ir::program::{AbiParam, ExprKind, ParamKind, Program};
use tessel_ir::ty::Ty;
use value::Val;
use writer::{Class, Writer};

/// The PTX ISA version of every module: 8.0 has wgmma, TMA, setmaxnreg and loads on drivers from
/// CUDA 12.0 on (checked on the H200).
pub const PTX_VERSION: &str = "8.0";

/// The PTX ISA version of a module with a warp-level fp8 `mma` (`mma.sync ... .e4m3`/`.e5m2` needs 8.4,
/// which drivers from CUDA 12.4 load; the H200's 580 driver loads up to 9.0, checked on the H200).
pub const PTX_VERSION_FP8_MMA: &str = "8.4";

/// The PTX ISA version of a module with a register atomic add of `f32` pairs (`red.global.add.v2.f32`
/// needs 8.1, `legality::ATOMIC_ADD`).
pub const PTX_VERSION_VECTOR_RED: &str = "8.1";

/// The PTX ISA version of a module whose entry takes more than 4352 bytes of parameters (peer
/// addresses and tensor maps of a kernel of several devices; `legality::PARAM_BYTES_PTX_8_0`).
pub const PTX_VERSION_LARGE_PARAMS: &str = "8.1";

/// The module's `.version`: [`PTX_VERSION`] unless an instruction or the entry's parameters need a
/// later one.
fn ptx_version(prog: &Program) -> &'static str {
    let needed = instructions_version(prog);
    if prog.param_bytes() > tessel_ir::legality::PARAM_BYTES_PTX_8_0 && needed == PTX_VERSION {
        return PTX_VERSION_LARGE_PARAMS;
    }
    needed
}

/// The version the module's instructions need.
fn instructions_version(prog: &Program) -> &'static str {
    let fp8 = |t: &Ty| matches!(t, Ty::Regs(r) if matches!(r.dtype, DType::F8E4M3 | DType::F8E5M2));
    let vector_red = |t: &Ty| {
        let pair = |r: &tessel_ir::ty::RegsTy| tessel_ir::legality::atomic_add_row(r.dtype).and_then(|row| row.pair);
        matches!(t, Ty::Regs(r) if pair(r).is_some_and(|p| p.version > (8, 0)))
    };
    if prog.any_expr(|e| matches!(&e.kind, ExprKind::Mma { a, .. } if fp8(&a.ty))) {
        PTX_VERSION_FP8_MMA
    } else if prog.any_expr(|e| matches!(&e.kind, ExprKind::AtomicAdd { value, .. } if vector_red(&value.ty))) {
        PTX_VERSION_VECTOR_RED
    } else {
        PTX_VERSION
    }
}

/// The PTX module of a kernel's program, or every internal error the writer met.
pub fn emit(prog: &Program, at: proc_macro2::Span) -> Result<String, syn::Error> {
    let mut w = Writer::default();
    let lanes = prologue(&mut w, prog);
    let smem_base = smem_base(&mut w);
    let mut g = Gen::new(prog, w, lanes, smem_base);
    load_params(&mut g);
    g.block(&prog.body);
    if prog.any_expr(|e| matches!(e.kind, ExprKind::CopyOut { .. })) {
        // Bulk stores must finish reading shared memory before the program exits and frees it;
        // their writes need no wait: they complete before the grid does, and a wait that must
        // see them published (a signal) is the kernel's own `wait_smem_to_gmem(.., complete)`.
        g.w.ins(format!("@{} cp.async.bulk.wait_group.read 0", g.lanes.leader));
    }
    g.w.ins("ret");
    g.finish(at)?;
    let body = g.w.finish();
    Ok(module(prog, &body))
}

/// The module text: header, the entry's parameters and directives, then the body.
fn module(prog: &Program, body: &str) -> String {
    let mut out = String::new();
    let _ = writeln!(out, "//\n// Generated by tessel for the kernel `{}`.\n//", prog.name);
    let _ = writeln!(out, ".version {}\n.target sm_90a\n.address_size 64\n", ptx_version(prog));
    // Declared in every module: the prologue takes its address whether or not the kernel uses it.
    let _ = writeln!(out, ".extern .shared .align 1024 .b8 smem[];\n");
    let params: Vec<String> = prog.abi().map(|p| entry_param(prog, p)).collect();
    let _ = writeln!(out, ".visible .entry {}(\n\t{}\n)", prog.name, params.join(",\n\t"));
    let threads = 128 * prog.warpgroups;
    let _ = writeln!(out, ".reqntid {threads}, 1, 1");
    if let Some(n) = prog.max_registers {
        let _ = writeln!(out, ".maxnreg {n}");
    }
    let [x, y, z] = prog.cluster;
    if x * y * z > 1 {
        let _ = writeln!(out, ".reqnctapercluster {x}, {y}, {z}");
    }
    let _ = writeln!(out, "{{\n{body}}}");
    out
}

/// One parameter of the entry (module doc).
fn entry_param(prog: &Program, p: AbiParam) -> String {
    match p {
        AbiParam::Param(i) => {
            let param = &prog.params[i];
            match &param.kind {
                ParamKind::Gmem { .. } => format!(".param .u64 {}", param.name),
                ParamKind::Scalar(d) => format!(".param .{} {}", param_type(*d), param.name),
            }
        }
        AbiParam::Dim(i) => format!(".param .s32 dim_{}", prog.runtime_dims[i]),
        AbiParam::TensorMap(i) => {
            let copies = if prog.tensor_maps[i].peers { prog.device_count() } else { 1 };
            format!(".param .align 64 .b8 tmap_{i}[{}]", 128 * copies)
        }
        AbiParam::DeviceRank => format!(".param .u32 {}", devices::DEVICE_RANK),
        AbiParam::Peers(i) => {
            let name = devices::peers_param(&prog.params[i].name);
            format!(".param .align 8 .b8 {name}[{}]", 8 * prog.device_count())
        }
    }
}

/// The `.param` type of a scalar parameter.
pub fn param_type(d: DType) -> &'static str {
    match d {
        DType::F32 | DType::Tf32 => "f32",
        DType::I64 => "s64",
        DType::U64 => "u64",
        DType::U32 | DType::U16 | DType::U8 => "u32",
        _ => "s32",
    }
}

/// Thread coordinates every op derives its fragments from.
fn prologue(w: &mut Writer, prog: &Program) -> Lanes {
    let reg = |w: &mut Writer| w.reg(Class::B32);
    let (tid_all, tid, wn, lane, g, t, row16, t2, wg) =
        (reg(w), reg(w), reg(w), reg(w), reg(w), reg(w), reg(w), reg(w), reg(w));
    w.comment(format!("kernel {}: thread coordinates", prog.name));
    w.ins(format!("mov.u32 {tid_all}, %tid.x"));
    w.ins(format!("and.b32 {tid}, {tid_all}, 127"));
    w.ins(format!("shr.u32 {wg}, {tid_all}, 7"));
    w.ins(format!("shr.u32 {wn}, {tid}, 5"));
    w.ins(format!("and.b32 {lane}, {tid}, 31"));
    w.ins(format!("shr.u32 {g}, {lane}, 2"));
    w.ins(format!("and.b32 {t}, {lane}, 3"));
    w.ins(format!("mad.lo.u32 {row16}, {wn}, 16, {g}"));
    w.ins(format!("shl.b32 {t2}, {t}, 1"));
    let (leader, first) = (w.reg(Class::Pred), w.reg(Class::Pred));
    w.ins(format!("setp.eq.u32 {leader}, {tid}, 0"));
    w.ins(format!("setp.eq.u32 {first}, {tid_all}, 0"));
    Lanes { tid, w: wn, g, t, row16, t2, wg, leader, first }
}

/// The program's shared memory, rounded up to 1024 bytes so swizzled buffers are aligned.
fn smem_base(w: &mut Writer) -> String {
    let base = w.reg(Class::B32);
    w.ins(format!("mov.u32 {base}, smem"));
    w.ins(format!("add.u32 {base}, {base}, 1023"));
    w.ins(format!("and.b32 {base}, {base}, -1024"));
    base
}

/// Reads the parameters into registers: global addresses, scalars, runtime dimensions, tensor maps.
fn load_params(g: &mut Gen) {
    let prog = g.prog;
    for (slot, p) in prog.params.iter().enumerate() {
        match &p.kind {
            ParamKind::Gmem { .. } => {
                let (raw, addr) = (g.w.reg(Class::B64), g.w.reg(Class::B64));
                g.w.ins(format!("ld.param.u64 {raw}, [{}]", p.name));
                g.w.ins(format!("cvta.to.global.u64 {addr}, {raw}"));
                g.bind(slot, Val::Gmem { param: slot, addr, peer: None }, false);
            }
            ParamKind::Scalar(d) => {
                let r = g.w.reg_for(*d);
                let t = param_type(*d);
                let r = if matches!(Class::of(*d), Class::B32 | Class::F32 | Class::B64) {
                    g.w.ins(format!("ld.param.{t} {r}, [{}]", p.name));
                    r
                } else {
                    let wide = g.w.reg(Class::B32);
                    g.w.ins(format!("ld.param.{t} {wide}, [{}]", p.name));
                    scalar::convert(g, DType::I32, *d, &wide)
                };
                g.bind(slot, Val::Scalar { reg: r, dtype: *d }, false);
            }
        }
    }
    for d in &prog.runtime_dims {
        let r = g.w.reg(Class::B32);
        g.w.ins(format!("ld.param.s32 {r}, [dim_{d}]"));
        g.dims.push(r);
    }
    for i in 0..prog.tensor_maps.len() {
        let r = g.w.reg(Class::B64);
        g.w.ins(format!("mov.b64 {r}, tmap_{i}"));
        g.w.ins(format!("cvta.param.u64 {r}, {r}"));
        g.tmaps.push(r);
    }
}
