//! Which elements of a register array each thread holds, by layout.
//!
//! A fragment is a per-thread base coordinate (registers computed from the thread's position) plus a
//! constant offset per element, in register order. The formulas are the PTX ISA's fragment figures
//! (checked on the H200): lane l, warp w of the warpgroup, g = l >> 2, t = l & 3.

use super::gen::Gen;
use crate::types::DType;
use crate::types::Layout;

/// The elements a thread holds: `coords[e][d] = base[d] + offsets[e][d]`.
pub struct Frag {
    /// One register per dimension (`.b32`); for `Strided`, one register: the flat index.
    pub base: Vec<String>,
    pub offsets: Vec<Vec<i64>>,
    /// `Strided` fragments index the flattened array; elements at or past `total` do not exist.
    pub flat: bool,
    pub total: i64,
    /// The base's last coordinate is even in every thread, so elements at even offsets along the
    /// last dimension sit at even coordinates (what a two-element vector access needs).
    pub even_base: bool,
}

impl Frag {
    pub fn len(&self) -> usize {
        self.offsets.len()
    }
}

/// How many elements of a `layout` array of `shape` one thread holds.
pub fn count(layout: Layout, shape: &[i64]) -> usize {
    let total: i64 = shape.iter().product();
    let n = match layout {
        Layout::Splat => 1,
        Layout::Strided => (total + 127) / 128,
        Layout::Wgmma => total / 128,
        Layout::WgmmaRow => shape[0] / 64 * 2,
        Layout::WgmmaCol => shape[0] / 4,
        Layout::MmaAcc => total / 128,
        Layout::MmaLhs => {
            let m_warps = shape[0] / 16;
            total / (32 * m_warps)
        }
        Layout::MmaRhs => total / 32,
    };
    n as usize
}

/// The fragment of this thread for an array of `shape` in `layout`.
pub fn fragment(g: &mut Gen, layout: Layout, shape: &[i64], dtype: DType) -> Frag {
    let total: i64 = shape.iter().product();
    let two = |base: Vec<String>, offsets: Vec<Vec<i64>>, even_base: bool| Frag {
        base,
        offsets,
        flat: false,
        total,
        even_base,
    };
    match layout {
        Layout::Splat => two(vec![], vec![vec![]], false),
        Layout::Strided => {
            let per = (total + 127) / 128;
            Frag {
                base: vec![g.lanes.tid.clone()],
                offsets: (0..per).map(|k| vec![128 * k]).collect(),
                flat: true,
                total,
                even_base: false,
            }
        }
        Layout::Wgmma => {
            let (m, n) = (shape[0], shape[1]);
            let mut offs = Vec::new();
            for mt in 0..m / 64 {
                for i in 0..n / 2 {
                    offs.push(vec![64 * mt + 8 * ((i >> 1) & 1), 8 * (i >> 2) + (i & 1)]);
                }
            }
            two(vec![g.lanes.row16.clone(), g.lanes.t2.clone()], offs, true)
        }
        Layout::WgmmaRow => {
            let offs = (0..shape[0] / 64).flat_map(|mt| [vec![64 * mt], vec![64 * mt + 8]]).collect();
            two(vec![g.lanes.row16.clone()], offs, false)
        }
        Layout::WgmmaCol => {
            let offs = (0..shape[0] / 8).flat_map(|j| [vec![8 * j], vec![8 * j + 1]]).collect();
            two(vec![g.lanes.t2.clone()], offs, true)
        }
        Layout::MmaAcc => mma_acc(g, shape),
        Layout::MmaLhs => mma_lhs(g, shape, dtype),
        Layout::MmaRhs => mma_rhs(g, shape, dtype),
    }
}

/// mma accumulators: warp (w % m_warps, w / m_warps) holds a 16 x N/n_warps block, in m16n8 tiles
/// whose four registers are (g, 2t), (g, 2t+1), (g+8, 2t), (g+8, 2t+1).
fn mma_acc(g: &mut Gen, shape: &[i64]) -> Frag {
    let (m, n) = (shape[0], shape[1]);
    let m_warps = m / 16;
    let n_per = n * m_warps / 4;
    let row = g.warp_row_base(m_warps);
    let col = g.warp_col_base(m_warps, n_per, 2);
    let mut offs = Vec::new();
    for j in 0..n_per / 8 {
        for c in 0..4 {
            offs.push(vec![8 * (c >> 1), 8 * j + (c & 1)]);
        }
    }
    // The column base is a multiple of n_per (itself even: n is a multiple of 8) plus 2t.
    Frag { base: vec![row, col], offsets: offs, flat: false, total: m * n, even_base: true }
}

/// mma A fragments: warp w % m_warps holds rows 16*(w % m_warps) ..+16; per K instruction block, four
/// registers (g, k0), (g+8, k0), (g, k0+half), (g+8, k0+half), each packing 32 bits of consecutive K.
fn mma_lhs(g: &mut Gen, shape: &[i64], dtype: DType) -> Frag {
    let (m, k) = (shape[0], shape[1]);
    let m_warps = m / 16;
    let per_reg = 32 / dtype.bits().max(1) as i64; // elements packed per 32-bit register
    let kstep = 8 * per_reg; // 16 for 16-bit, 32 for 8-bit
    let row = g.warp_row_base(m_warps);
    let col = g.lane_times_t(per_reg);
    let mut offs = Vec::new();
    for kk in 0..k / kstep {
        for r in 0..4 {
            for e in 0..per_reg {
                offs.push(vec![8 * (r & 1), kstep * kk + (kstep / 2) * (r >> 1) + e]);
            }
        }
    }
    // The column base is per_reg * t, per_reg >= 2.
    Frag { base: vec![row, col], offsets: offs, flat: false, total: m * k, even_base: true }
}

/// mma B fragments (B is K x N), held whole by every warp: per n8 block and K instruction block, two
/// registers (k0 + per_reg*t, n = g) and (k0 + half + per_reg*t, n = g).
fn mma_rhs(g: &mut Gen, shape: &[i64], dtype: DType) -> Frag {
    let (k, n) = (shape[0], shape[1]);
    let per_reg = 32 / dtype.bits().max(1) as i64;
    let kstep = 8 * per_reg;
    let krow = g.lane_times_t(per_reg);
    let mut offs = Vec::new();
    for j in 0..n / 8 {
        for kk in 0..k / kstep {
            for r in 0..2 {
                for e in 0..per_reg {
                    offs.push(vec![kstep * kk + (kstep / 2) * r + e, 8 * j]);
                }
            }
        }
    }
    Frag { base: vec![krow, g.lanes.g.clone()], offsets: offs, flat: false, total: k * n, even_base: false }
}
