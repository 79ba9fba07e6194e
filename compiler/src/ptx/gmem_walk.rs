//! Addresses and bounds of the elements of a global tile that registers are loaded from or stored
//! to.
//!
//! For a fragment whose elements sit at constant offsets from the thread's first one (every layout
//! but `Strided`), the thread's first address and the room left along each dimension are computed
//! once per load or store. An element then costs one `mad` per leading dimension (the same
//! instruction for every element of a row, which ptxas shares), one compare per dimension against
//! the room, and nothing for its last coordinate, which rides in the instruction's immediate
//! offset. A `Strided` fragment's elements have coordinates computed one by one (a division of the
//! flat index), so each gets a walk of its own at offset 0. (`gmem_pairs` moves side-by-side
//! pairs of elements with one vector access through the same walk; `gmem_quads` runs of eight
//! through a walk of its own.)
//!
//! The bounds make register loads and stores of global tiles safe against a grid larger than the
//! arrays: elements outside are not written, and read as 0.

use super::gen::Gen;
use super::memory::gmem_dims;
use super::writer::Class;
use crate::types::DType;

/// One load or store's addressing: what every element of the fragment shares.
pub(super) struct Walk {
    /// `.b64`: the address of the thread's first element (its coordinates `index * tile + base`).
    origin: String,
    /// `.b64` bytes per step along each dimension but the last (whose step is `elem` bytes).
    strides: Vec<String>,
    /// `.s32`: dimension minus the thread's first coordinate; an element at offset `o` lies inside
    /// the array when `o < room` in every dimension (a negative room: none does).
    room: Vec<String>,
    elem: i64,
    /// Leading dimensions of the tile that the fragment does not have (extents of 1, at offset 0).
    pad: usize,
}

impl Walk {
    /// The walk over a tile of parameter `param` (global address `base`) at block `index` of shape
    /// `tile`, for a fragment whose thread coordinates are the registers `first` (of the tile's
    /// last dimensions: `tile_registers` drops leading extents of 1).
    pub fn new(
        g: &mut Gen,
        base: &str,
        param: usize,
        index: &[String],
        tile: &[i64],
        first: &[String],
        dtype: DType,
    ) -> Walk {
        let dims = gmem_dims(g, param);
        let n = dims.len();
        let elem = i64::from(dtype.elem_bytes());
        let mut strides = vec![String::new(); n];
        let mut step = elem.to_string();
        for d in (0..n).rev() {
            strides[d] = step.clone();
            if d > 0 {
                let (w, next) = (g.w.reg(Class::B64), g.w.reg(Class::B64));
                g.w.ins(format!("cvt.u64.u32 {w}, {}", dims[d]));
                g.w.ins(format!("mul.lo.u64 {next}, {w}, {step}"));
                step = next;
            }
        }
        let (mut origin, mut room) = (base.to_string(), Vec::with_capacity(n));
        let pad = n.saturating_sub(first.len());
        for d in 0..n {
            let (start, wide, left, addr) =
                (g.w.reg(Class::B32), g.w.reg(Class::B64), g.w.reg(Class::B32), g.w.reg(Class::B64));
            let first = if d < pad { "0" } else { first[d - pad].as_str() };
            g.w.ins(format!("mad.lo.u32 {start}, {}, {}, {first}", index[d], tile[d]));
            g.w.ins(format!("cvt.u64.u32 {wide}, {start}"));
            g.w.ins(format!("mad.lo.u64 {addr}, {wide}, {}, {origin}", strides[d]));
            g.w.ins(format!("sub.s32 {left}, {}, {start}", dims[d]));
            origin = addr;
            room.push(left);
        }
        strides.pop();
        Walk { origin, strides, room, elem, pad }
    }

    /// A fragment element's offsets along every dimension of the tile.
    fn padded(&self, offsets: &[i64]) -> Vec<i64> {
        std::iter::repeat_n(0, self.pad).chain(offsets.iter().copied()).collect()
    }

    /// The address operand (`reg+bytes`, for `[..]`) and the in-bounds predicate of the element at
    /// `offsets` from the thread's first.
    pub fn element(&self, g: &mut Gen, offsets: &[i64]) -> (String, String) {
        (self.address(g, offsets), self.inside(g, offsets, 0))
    }

    /// For two elements side by side along the last dimension, the first at `offsets`: the address
    /// operand of the first and the predicate "both inside the array". (With an even last
    /// dimension and the first at an even coordinate, a pair never straddles the end of a row:
    /// both are inside or neither is.)
    pub fn pair(&self, g: &mut Gen, offsets: &[i64]) -> (String, String) {
        self.run(g, offsets, 2)
    }

    /// For `len` elements side by side along the last dimension, the first at `offsets`: the
    /// address operand of the first and the predicate "all inside the array" (a run that cannot
    /// straddle the end of a row, as for `pair`).
    pub fn run(&self, g: &mut Gen, offsets: &[i64], len: i64) -> (String, String) {
        (self.address(g, offsets), self.inside(g, offsets, len - 1))
    }

    /// `reg+bytes`: one `mad` per leading dimension with a nonzero offset, the last offset as the
    /// immediate.
    fn address(&self, g: &mut Gen, offsets: &[i64]) -> String {
        let offsets = &self.padded(offsets);
        let mut addr = self.origin.clone();
        for (stride, &o) in self.strides.iter().zip(offsets) {
            if o != 0 {
                let next = g.w.reg(Class::B64);
                g.w.ins(format!("mad.lo.u64 {next}, {stride}, {o}, {addr}"));
                addr = next;
            }
        }
        let last = offsets.last().copied().unwrap_or(0) * self.elem;
        format!("{addr}+{last}")
    }

    /// The predicate "the element at `offsets`, and the `beyond` after it along the last dimension,
    /// lie inside the array": one compare per dimension against the room left.
    fn inside(&self, g: &mut Gen, offsets: &[i64], beyond: i64) -> String {
        let offsets = &self.padded(offsets);
        let inside = g.w.reg(Class::Pred);
        let n = self.room.len().min(offsets.len());
        for (d, (room, &o)) in self.room.iter().zip(offsets).enumerate() {
            let o = if d + 1 == n { o + beyond } else { o };
            if d == 0 {
                g.w.ins(format!("setp.gt.s32 {inside}, {room}, {o}"));
            } else {
                g.w.ins(format!("setp.gt.and.s32 {inside}, {room}, {o}, {inside}"));
            }
        }
        inside
    }
}
