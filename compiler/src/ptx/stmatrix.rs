//! `stmatrix`: a WGMMA-layout array of bf16 or f16 elements stored to shared memory as 8 x 8 matrices,
//! four per instruction, instead of one `st.shared` per element.
//!
//! The WGMMA fragment of a 16 x 16 block of a warp's rows is exactly the register side of
//! `stmatrix.m8n8.x4` (PTX ISA, stmatrix; checked on the H200): for each 8-column half, lane
//! `l` holds row `l / 4` and row `l / 4 + 8`, columns `2 (l % 4)` and `+1`. Lanes `8i .. 8i + 8`
//! give the row addresses of matrix `i`. Rows are 16-byte chunks, which every swizzle keeps whole,
//! so each row address is just the address of its first element.

use super::gen::Gen;
use super::memory::smem_addr;
use super::writer::Class;
use crate::typeck::{RegsTy, SmemTy};
use crate::types::DType;
use crate::types::Layout;

/// Whether `value` can be stored into the shared view `ty` with `stmatrix`: bf16/f16 WGMMA fragments
/// (16-bit integers live in 32-bit registers, which the packing into `.b32` pairs does not take)
/// of whole 16-column blocks into a row-major view whose 8-element row chunks are 16-byte aligned.
pub fn applies(ty: &SmemTy, value: &RegsTy, alloc_cols: i64) -> bool {
    let [m, n] = value.shape[..] else { return false };
    let aligned_rows = ty.swizzle.is_some() || (!ty.sliced && alloc_cols * 2 % 16 == 0);
    value.layout == Layout::Wgmma
        && matches!(value.dtype, DType::Bf16 | DType::F16)
        && !ty.transposed
        && ty.stored.len() >= 2
        && m % 64 == 0
        && n % 16 == 0
        && aligned_rows
}

/// Stores the fragment registers `regs` (in WGMMA element order) at the view `base`.
pub fn store(g: &mut Gen, base: &str, ty: &SmemTy, value: &RegsTy, regs: &[String]) {
    let (m, n) = (value.shape[0], value.shape[1]);
    // This lane's row within the warp's 16 rows and column within the 16-column block, from
    // `%tid.x` read here rather than the prologue's coordinates: an epilogue that stores a
    // previous tile's result while holding the next one's accumulator would otherwise keep those
    // registers alive through the whole main loop, and ptxas spilled them there.
    let (lane, quad, row, col0) = (g.w.reg(Class::B32), g.w.reg(Class::B32), g.w.reg(Class::B32), g.w.reg(Class::B32));
    let warp = g.w.reg(Class::B32);
    g.w.ins(format!("mov.u32 {lane}, %tid.x"));
    g.w.ins(format!("bfe.u32 {warp}, {lane}, 5, 2"));
    g.w.ins(format!("and.b32 {lane}, {lane}, 31"));
    g.w.ins(format!("shr.u32 {quad}, {lane}, 3"));
    g.w.ins(format!("and.b32 {row}, {quad}, 1"));
    g.w.ins(format!("shl.b32 {row}, {row}, 3"));
    g.w.ins(format!("and.b32 {lane}, {lane}, 7"));
    g.w.ins(format!("add.u32 {row}, {row}, {lane}"));
    g.w.ins(format!("mad.lo.u32 {row}, {warp}, 16, {row}"));
    g.w.ins(format!("shr.u32 {col0}, {quad}, 1"));
    g.w.ins(format!("shl.b32 {col0}, {col0}, 3"));
    let per_tile = (n / 2) as usize;
    for mt in 0..(m / 64) as usize {
        let r = g.w.reg(Class::B32);
        g.w.ins(format!("add.u32 {r}, {row}, {}", 64 * mt));
        for block in 0..(n / 16) as usize {
            let c = g.w.reg(Class::B32);
            g.w.ins(format!("add.u32 {c}, {col0}, {}", 16 * block));
            let addr = smem_addr(g, base, ty, &[r.clone(), c]);
            // Elements 8 * block .. + 8 of the tile: (row lo, row hi) of the left half, then of the right.
            let first = mt * per_tile + 8 * block;
            let packed: Vec<String> = regs[first..first + 8]
                .chunks(2)
                .map(|pair| {
                    let p = g.w.reg(Class::B32);
                    g.w.ins(format!("mov.b32 {p}, {{{}, {}}}", pair[0], pair[1]));
                    p
                })
                .collect();
            g.w.ins(format!("stmatrix.sync.aligned.m8n8.x4.shared.b16 [{addr}], {{{}}}", packed.join(", ")));
        }
    }
}
