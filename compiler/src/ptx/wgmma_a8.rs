//! 8-bit A operands of `wgmma` from registers: the fragment of a k32 step built from a
//! `Layout::Wgmma` array by a shuffle within each quad of lanes.
//!
//! The WGMMA layout puts element `i` of a 64-row tile at row `16w + g + 8((i >> 1) & 1)`, column
//! `8(i >> 2) + 2t + (i & 1)`: two consecutive columns per 8-column block. The 8-bit A fragment of
//! `wgmma.m64nNk32` (PTX ISA, "wgmma register fragment layout for matrix A", 8-bit types; the same
//! as mma.m16n8k32 with rows offset by 16w) wants four consecutive columns per register:
//! register r packs (row `16w + g + 8(r & 1)`, columns `32ks + 16(r >> 1) + 4t + e`, e = 0..3).
//!
//! Column `32ks + 16(r >> 1) + 4t + e` lies in block `q = 4ks + 2(r >> 1) + (t >> 1)` at offset
//! `4(t & 1) + e`, which lane `t' = 2(t & 1) + (e >> 1)` of the same quad holds as its element
//! `4q + 2h + (e & 1)`. So every lane packs, for register r, its two elements of blocks q0 and q0 + 1
//! (q0 = 4ks + 2(r >> 1)) into one word; each lane reads the words of lanes `2(t & 1)` and
//! `2(t & 1) + 1` of its quad and keeps bytes 0-1 (t < 2, block q0) or 2-3 (t >= 2, block q0 + 1).

use super::gen::Gen;
use super::mma::pack;
use super::writer::Class;
use crate::types::DType;

/// The four A registers `{a0, a1, a2, a3}` of k32 step `ks` of 64-row tile `mt`, from the
/// `Layout::Wgmma` registers of an 8-bit [64 * tiles, k] array.
pub fn fragment(g: &mut Gen, dtype: DType, regs: &[String], k: i64, mt: i64, ks: i64) -> String {
    let (src0, src1, sel) = quad_sources(g);
    let base = (mt * k / 2) as usize;
    let regs: Vec<String> = (0..4)
        .map(|r: usize| {
            let (h, q0) = (r & 1, (4 * ks) as usize + 2 * (r >> 1));
            let elems: Vec<String> = [4 * q0 + 2 * h, 4 * q0 + 2 * h + 1, 4 * q0 + 4 + 2 * h, 4 * q0 + 5 + 2 * h]
                .iter()
                .map(|i| regs[base + i].clone())
                .collect();
            let word = pack(g, dtype, &elems);
            let (x0, x1, a) = (g.w.reg(Class::B32), g.w.reg(Class::B32), g.w.reg(Class::B32));
            g.w.ins(format!("shfl.sync.idx.b32 {x0}, {word}, {src0}, 31, -1"));
            g.w.ins(format!("shfl.sync.idx.b32 {x1}, {word}, {src1}, 31, -1"));
            g.w.ins(format!("prmt.b32 {a}, {x0}, {x1}, {sel}"));
            a
        })
        .collect();
    format!("{{{}}}", regs.join(", "))
}

/// The lanes this lane reads (`4g + 2(t & 1)` and the next) and the `prmt` selector that keeps
/// bytes 0-1 of each (`0x5410`, t < 2) or bytes 2-3 (`0x7632`, t >= 2).
fn quad_sources(g: &mut Gen) -> (String, String, String) {
    let (odd, src0, src1, sel) = (g.w.reg(Class::B32), g.w.reg(Class::B32), g.w.reg(Class::B32), g.w.reg(Class::B32));
    g.w.ins(format!("and.b32 {odd}, {}, 1", g.lanes.t));
    g.w.ins(format!("shl.b32 {odd}, {odd}, 1"));
    g.w.ins(format!("mad.lo.u32 {src0}, {}, 4, {odd}", g.lanes.g));
    g.w.ins(format!("add.u32 {src1}, {src0}, 1"));
    g.w.ins(format!("shr.u32 {sel}, {}, 1", g.lanes.t));
    g.w.ins(format!("mad.lo.u32 {sel}, {sel}, 8738, 21520")); // 0x5410 + (t >> 1) * 0x2222
    (src0, src1, sel)
}
