//! `wgmma(acc, a, b)` (PTX ISA §9.7.15.5.2, wgmma.mma_async; checked on the H200).
//!
//! One tessel `wgmma` is a group: `wgmma.fence`, one instruction per (64-row tile of M, K step), and
//! `wgmma.commit_group`. Operands in shared memory are described by 64-bit matrix descriptors.

use super::gen::Gen;
use super::value::Val;
use super::writer::Class;
use crate::legality;
use crate::typeck::{AllocKind, SmemTy};
use crate::types::DType;
use tessel_ir::program::Expr;

/// PTX's name of an operand or accumulator type in wgmma.
pub fn ptx_type(d: DType) -> &'static str {
    match d {
        DType::F16 => "f16",
        DType::Bf16 => "bf16",
        DType::Tf32 => "tf32",
        DType::F8E4M3 => "e4m3",
        DType::F8E5M2 => "e5m2",
        DType::I8 => "s8",
        DType::U8 => "u8",
        DType::I32 => "s32",
        _ => "f32",
    }
}

/// How an operand sits in shared memory, for its descriptor.
struct Operand {
    addr: String,
    ty: SmemTy,
    /// Rows of the allocation's stored 2-D tile (strides of column blocks).
    alloc_rows: i64,
    /// The contiguous dimension is K (true) or M/N (false).
    k_major: bool,
}

fn operand(g: &Gen, v: Val, is_a: bool) -> Option<Operand> {
    let Val::Smem { addr, ty } = v else { return None };
    let alloc_rows = match &g.prog.allocs[ty.alloc].kind {
        AllocKind::Smem { stored, .. } => stored[stored.len() - 2],
        _ => ty.stored[ty.stored.len() - 2],
    };
    // A is K-major when stored [M, K]; B when stored [N, K], which is a transposed view of [K, N].
    let k_major = if is_a { !ty.transposed } else { ty.transposed };
    Some(Operand { addr, ty, alloc_rows, k_major })
}

/// The descriptors (`.b64`) of an operand's slabs. The one at offset 0 is built from the address
/// (add, extract bits 4..18, widen, or in the strides and swizzle); the others add their byte
/// offset / 16 to it, one `add` each: the start address is the descriptor's low 14 bits, and
/// shared-memory addresses (< 2^18) leave them no carry. Per K step of a pipeline that is 1
/// instruction a slab instead of 4 on the consumer's path from one stage to the next.
struct Descriptors<'o> {
    op: &'o Operand,
    /// Descriptors by start offset, so a slab used by several instructions is described once.
    made: Vec<(i64, String)>,
}

impl<'o> Descriptors<'o> {
    fn new(op: &'o Operand) -> Self {
        Descriptors { op, made: Vec::new() }
    }

    /// The descriptor of the 64-row (A) or full-N (B) slab that starts at `mn` along M/N and `k`
    /// along K.
    fn at(&mut self, g: &mut Gen, mn: i64, k: i64) -> String {
        let start = self.start(mn, k);
        self.at_offset(g, start)
    }

    /// The descriptor of the slab `start` bytes from the operand's address.
    fn at_offset(&mut self, g: &mut Gen, start: i64) -> String {
        if let Some((_, d)) = self.made.iter().find(|(s, _)| *s == start) {
            return d.clone();
        }
        let d = if start != 0 && start % 16 == 0 {
            let base = self.at_offset(g, 0);
            let d = g.w.reg(Class::B64);
            g.w.ins(format!("add.s64 {d}, {base}, {}", start >> 4));
            d
        } else {
            self.build(g, start)
        };
        self.made.push((start, d.clone()));
        d
    }

    /// The byte offset of the slab at (`mn`, `k`) from the operand's address.
    fn start(&self, mn: i64, k: i64) -> i64 {
        let op = self.op;
        let s = i64::from(op.ty.swizzle.bytes());
        let eb = op.ty.dtype.bits() as i64 / 8;
        let w = legality::swizzle_elems(op.ty.swizzle, op.ty.dtype);
        let block = op.alloc_rows * s; // bytes of one column block of the stored tile
        if op.k_major {
            // Rows are M/N, contiguous K; K steps stay inside a swizzled row, then the next block.
            (k / w) * block + mn * s + (k % w) * eb
        } else {
            // Rows are K, contiguous M/N: column blocks of M/N, then 8-row groups of K.
            (mn / w) * block + k * s + (mn % w) * eb
        }
    }

    /// The descriptor at byte offset `start`, built from the address.
    fn build(&self, g: &mut Gen, start: i64) -> String {
        let op = self.op;
        let s = i64::from(op.ty.swizzle.bytes());
        let block = op.alloc_rows * s;
        // K-major: LBO is unused (16); MN-major: LBO steps between column blocks of M/N. SBO steps
        // between 8-row groups either way.
        let (lbo, sbo) = if op.k_major { (16, 8 * s) } else { (block, 8 * s) };
        let layout = legality::swizzle_row(op.ty.swizzle.bytes()).map_or(0, |r| r.descriptor_layout);
        let high: u64 = (((lbo as u64) >> 4) << 16) | (((sbo as u64) >> 4) << 32) | (layout << 62);
        let a = g.w.reg(Class::B32);
        g.w.ins(format!("add.u32 {a}, {}, {start}", op.addr));
        g.w.ins(format!("bfe.u32 {a}, {a}, 4, 14"));
        let d = g.w.reg(Class::B64);
        g.w.ins(format!("cvt.u64.u32 {d}, {a}"));
        g.w.ins(format!("or.b64 {d}, {d}, {high}"));
        d
    }
}

/// `wgmma(acc, a, b)`: one `wgmma.mma_async` per 64-row tile of the accumulator and K step of the
/// operands, one commit group. With `accumulate = c`, the first K step of each tile takes `c` as
/// its scale-d predicate (false: D = A B, the accumulator's old value ignored), the others add.
pub fn emit_wgmma(g: &mut Gen, acc: &Expr, a: &Expr, b: &Expr, accumulate: Option<&Expr>) -> Val {
    let scale_d = accumulate.and_then(|c| match g.expr(c) {
        Val::Const(v) => Some(if v != 0 { "1" } else { "0" }.to_string()),
        Val::Scalar { reg, .. } => Some(reg),
        _ => None,
    });
    let (av, bv, cv) = (g.expr(a), g.expr(b), g.expr(acc));
    let Val::Acc { regs: acc_regs, ty: acc_ty } = cv else {
        return g.internal("a wgmma into something other than an accumulator");
    };
    let Some(b_op) = operand(g, bv, false) else { return g.internal("a wgmma whose B is not in shared memory") };
    let a_dtype = match &av {
        Val::Smem { ty, .. } => ty.dtype,
        Val::Regs { ty, .. } => ty.dtype,
        other => return g.internal(format!("a wgmma whose A is {other:?}")),
    };
    let Some(row) = legality::wgmma_row(a_dtype) else { return g.internal(format!("a wgmma of {a_dtype} operands")) };
    let (m, n) = (acc_ty.shape[0], acc_ty.shape[1]);
    let k = match &av {
        Val::Smem { ty, .. } => {
            let s = ty.shape();
            s[s.len() - 1]
        }
        Val::Regs { ty, .. } => ty.shape[1],
        _ => 0,
    };
    let per_tile = acc_regs.len() / (m / 64) as usize;
    let shape = format!("m64n{n}k{}", row.k_step);
    let types = format!("{}.{}.{}", ptx_type(acc_ty.dtype), ptx_type(a_dtype), ptx_type(b_op.ty.dtype));
    // Pack register-A operands before the fence: a write to A registers between `wgmma.fence` and
    // the wgmma makes ptxas inject a warpgroup.arrive (C7519, checked on the H200).
    let a_regs: Vec<Vec<String>> = match &av {
        Val::Regs { regs, ty } => (0..m / 64)
            .map(|mt| {
                (0..k / row.k_step)
                    .map(|ks| match ty.dtype.bits() {
                        8 => super::wgmma_a8::fragment(g, ty.dtype, regs, ty.shape[1], mt, ks),
                        _ => a_fragment(g, regs, ty.shape[1], mt, ks),
                    })
                    .collect()
            })
            .collect(),
        _ => Vec::new(),
    };
    g.w.ins("wgmma.fence.sync.aligned");
    let a_op = match &av {
        Val::Smem { .. } => operand(g, av.clone(), true),
        _ => None,
    };
    let mut b_desc = Descriptors::new(&b_op);
    let mut a_desc = a_op.as_ref().map(Descriptors::new);
    for mt in 0..m / 64 {
        let d = &acc_regs[mt as usize * per_tile..(mt as usize + 1) * per_tile];
        let d = format!("{{{}}}", d.join(", "));
        for ks in 0..k / row.k_step {
            let kk = ks * row.k_step;
            let bd = b_desc.at(g, 0, kk);
            let a_text = match (&mut a_desc, &av) {
                (Some(descs), _) => descs.at(g, 64 * mt, kk),
                (None, Val::Regs { .. }) => a_regs[mt as usize][ks as usize].clone(),
                _ => return g.internal("a wgmma whose A is neither in shared memory nor in registers"),
            };
            let tail = imm_tail(row, a_op.as_ref().map(|o| !o.k_major), !b_op.k_major);
            let scale = match (&scale_d, ks) {
                (Some(p), 0) => p.as_str(),
                _ => "1",
            };
            g.w.ins(format!("wgmma.mma_async.sync.aligned.{shape}.{types} {d}, {a_text}, {bd}, {scale}{tail}"));
        }
    }
    g.w.ins("wgmma.commit_group.sync.aligned");
    Val::Unit
}

/// The immediate operands after scale-d: scale-a, scale-b and the transposes where the form has them.
fn imm_tail(row: &legality::WgmmaRow, a_trans: Option<bool>, b_trans: bool) -> String {
    if row.operand.is_int() {
        return String::new();
    }
    if !row.transposable {
        return ", 1, 1".into();
    }
    match a_trans {
        Some(t) => format!(", 1, 1, {}, {}", t as u8, b_trans as u8),
        None => format!(", 1, 1, {}", b_trans as u8),
    }
}

/// The four `.b32` registers of A for one K step, from a 16-bit WGMMA-layout array: register r packs
/// elements 8*ks + 2r and 8*ks + 2r + 1 of the 64-row tile (checked on the H200, A from registers).
fn a_fragment(g: &mut Gen, regs: &[String], k: i64, mt: i64, ks: i64) -> String {
    let per_tile = (k / 2) as usize;
    let base = mt as usize * per_tile + 8 * ks as usize;
    let packed: Vec<String> = (0..4)
        .map(|r| {
            let p = g.w.reg(Class::B32);
            g.w.ins(format!("mov.b32 {p}, {{{}, {}}}", regs[base + 2 * r], regs[base + 2 * r + 1]));
            p
        })
        .collect();
    format!("{{{}}}", packed.join(", "))
}
