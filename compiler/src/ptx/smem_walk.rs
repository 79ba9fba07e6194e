//! Register loads and stores of `Wgmma`-layout arrays (and of their row and column vectors) in
//! shared memory through one address per thread, two elements at a time.
//!
//! Element by element (`memory::smem_addr`), each address of a swizzled view costs a division and
//! a remainder by the swizzle's width, three multiply-adds and the swizzle's shift, mask and xor:
//! an f32 accumulator tile of 64 x 64 on its way to a TMA store took about 150 such instructions
//! and 32 scalar stores a thread (the attention backward's dQ, a fifth of its consumers' time in
//! the H200's stall samples). Here the thread's own position is turned into an address once and
//! each element adds a constant:
//!
//! - A `Wgmma` fragment is a base (row `16 warp + lane / 4`, column `2 (lane % 4)`, below 8) plus
//!   constant offsets whose columns are `8 k` or `8 k + 1`. With a swizzle width (elements per
//!   swizzled row) a multiple of 8, base column plus offset never crosses a column block that the
//!   offset alone does not, so the unswizzled byte offset splits into the thread's part `T` and
//!   the element's constant `K`.
//! - The swizzle xors bits `[4, 4 + b)` of an address with bits `[7, 7 + b)`, so adding a multiple
//!   of its period `P = 2^(7 + b)` (8 swizzled rows) commutes with it: the address of `T + K` is
//!   `swizzle(T + K mod P) + (K - K mod P)`. One swizzle per distinct `K mod P` (four for an f32
//!   tile under the 128-byte swizzle), then an immediate offset per access.
//! - Elements come in pairs side by side (columns `2t` and `2t + 1`), and a swizzle moves whole
//!   16-byte chunks, so an aligned pair stays contiguous: one `.v2` access for two f32, one `.b32`
//!   for two 16-bit floats.
//!
//! Vectors (`WgmmaRow`, `WgmmaCol`) of a plain 1-D view walk the same way: the backward
//! attention's consumers read two such vectors of 64 f32 a step (a block's row statistics), 16
//! scalar loads with an address computed for each, where a `WgmmaCol` walk makes 8 `.v2` loads
//! from one address.

use super::gen::Gen;
use super::gmem_pairs;
use super::layout::Frag;
use super::memory::{mem_type, stored_offset, swizzle};
use super::writer::Class;
use crate::legality;
use crate::typeck::SmemTy;
use crate::types::{DType, Layout};

/// How a `Wgmma` fragment walks a shared view: the thread's unswizzled address, the element
/// offsets, and the view's swizzle.
pub(super) struct SmemWalk {
    /// The thread's first element's address, before any swizzle (`.b32`).
    thread: String,
    /// Per element: its constant byte offset from `thread`, before any swizzle.
    offsets: Vec<i64>,
    /// The swizzle's bytes (its period is 8 of them), if the view has one.
    swizzle: Option<u32>,
    /// Swizzled addresses by their offset below the period, made once each.
    made: Vec<(i64, String)>,
    /// Two elements move as one access.
    paired: bool,
}

/// Whether a `layout` array of `dtype` moves to or from the shared view `ty` through a walk:
/// `Wgmma` fragments of a row-major view, whose swizzle width, if any, is a multiple of 8 elements,
/// and `WgmmaRow` or `WgmmaCol` vectors (a tile's row or column statistics) of a plain 1-D view.
pub(super) fn applies(layout: Layout, dtype: DType, ty: &SmemTy) -> bool {
    if dtype == DType::Bool || ty.transposed {
        return false;
    }
    match layout {
        Layout::Wgmma => {
            let width_ok = !ty.swizzle.is_some() || legality::swizzle_elems(ty.swizzle, dtype) % 8 == 0;
            ty.stored.len() >= 2 && width_ok
        }
        Layout::WgmmaRow | Layout::WgmmaCol => ty.stored.len() == 1 && !ty.swizzle.is_some(),
        _ => false,
    }
}

/// This thread's first `Wgmma` element's unswizzled address: row `16 warp + lane / 4` of
/// `row_bytes`, column pair `lane % 4` of `pair_bytes`, from the view at `base`. The position is
/// read from `%tid.x` here (as `stmatrix` does), so that no prologue register lives on to every
/// access.
fn thread_address(g: &mut Gen, base: &str, row_bytes: i64, pair_bytes: i64) -> String {
    let (tid, lane, row, col) = (g.w.reg(Class::B32), g.w.reg(Class::B32), g.w.reg(Class::B32), g.w.reg(Class::B32));
    g.w.ins(format!("mov.u32 {tid}, %tid.x"));
    g.w.ins(format!("and.b32 {lane}, {tid}, 31"));
    g.w.ins(format!("bfe.u32 {row}, {tid}, 5, 2"));
    g.w.ins(format!("shl.b32 {row}, {row}, 4"));
    g.w.ins(format!("shr.u32 {col}, {lane}, 2"));
    g.w.ins(format!("add.u32 {row}, {row}, {col}"));
    g.w.ins(format!("and.b32 {col}, {lane}, 3"));
    g.w.ins(format!("mul.lo.u32 {col}, {col}, {pair_bytes}"));
    let thread = g.w.reg(Class::B32);
    g.w.ins(format!("mad.lo.u32 {thread}, {row}, {row_bytes}, {col}"));
    g.w.ins(format!("add.u32 {thread}, {thread}, {base}"));
    thread
}

/// This thread's first element's address in a vector: a `WgmmaRow` thread's first row is
/// `16 warp + lane / 4`, a `WgmmaCol` thread's first column pair `lane % 4`.
fn vector_address(g: &mut Gen, base: &str, layout: Layout, eb: i64) -> String {
    let (tid, at) = (g.w.reg(Class::B32), g.w.reg(Class::B32));
    g.w.ins(format!("mov.u32 {tid}, %tid.x"));
    if layout == Layout::WgmmaCol {
        g.w.ins(format!("and.b32 {at}, {tid}, 3"));
        g.w.ins(format!("mul.lo.u32 {at}, {at}, {}", 2 * eb));
    } else {
        let lane = g.w.reg(Class::B32);
        g.w.ins(format!("bfe.u32 {at}, {tid}, 5, 2"));
        g.w.ins(format!("bfe.u32 {lane}, {tid}, 2, 3"));
        g.w.ins(format!("mad.lo.u32 {at}, {at}, 16, {lane}"));
        g.w.ins(format!("mul.lo.u32 {at}, {at}, {eb}"));
    }
    let thread = g.w.reg(Class::B32);
    g.w.ins(format!("add.u32 {thread}, {at}, {base}"));
    thread
}

impl SmemWalk {
    /// The walk of `frag` (a `layout` fragment that [`applies`]) over the view at `base`.
    pub(super) fn new(g: &mut Gen, base: &str, ty: &SmemTy, alloc: &[i64], frag: &Frag, layout: Layout) -> SmemWalk {
        let dtype = ty.dtype;
        let eb = i64::from(dtype.elem_bytes());
        let cols = alloc[alloc.len() - 1];
        let swizzled = ty.swizzle.is_some();
        let (thread, offsets) = if layout == Layout::Wgmma {
            let row_bytes = if swizzled { i64::from(ty.swizzle.bytes()) } else { cols * eb };
            // A fragment offset's column stays in its column block whatever the thread's base
            // column (module documentation), so the element's part of the offset is a constant.
            let offsets = frag.offsets.iter().map(|o| stored_offset(alloc, ty, o[0], o[1])).collect();
            (thread_address(g, base, row_bytes, 2 * eb), offsets)
        } else {
            let offsets = frag.offsets.iter().map(|o| stored_offset(alloc, ty, 0, o[0])).collect();
            (vector_address(g, base, layout, eb), offsets)
        };
        // 16-bit integers live in 32-bit registers, which the packing into `.b32` does not take.
        let wide = matches!(dtype, DType::Bf16 | DType::F16) || eb == 4;
        let aligned = cols % 2 == 0 && (swizzled || !ty.sliced);
        let paired = wide && aligned && gmem_pairs::pairs(frag, dtype, cols);
        SmemWalk { thread, offsets, swizzle: swizzled.then(|| ty.swizzle.bytes()), made: Vec::new(), paired }
    }

    /// The address operand (`reg+imm`) of element `el`.
    fn address(&mut self, g: &mut Gen, el: usize) -> String {
        let k = self.offsets[el];
        let Some(bytes) = self.swizzle else { return format!("{}+{k}", self.thread) };
        let period = 8 * i64::from(bytes);
        let (low, high) = (k.rem_euclid(period), k - k.rem_euclid(period));
        let reg = match self.made.iter().find(|(l, _)| *l == low) {
            Some((_, r)) => r.clone(),
            None => {
                let unswizzled = g.w.reg(Class::B32);
                g.w.ins(format!("add.u32 {unswizzled}, {}, {low}", self.thread));
                let r = swizzle(g, &unswizzled, bytes);
                self.made.push((low, r.clone()));
                r
            }
        };
        format!("{reg}+{high}")
    }

    /// Stores `regs` (the fragment's elements, in order).
    pub(super) fn store(&mut self, g: &mut Gen, regs: &[String], dtype: DType) {
        let ty = mem_type(dtype);
        if !self.paired {
            for (el, r) in regs.iter().enumerate() {
                let addr = self.address(g, el);
                g.w.ins(format!("st.shared.{ty} [{addr}], {r}"));
            }
            return;
        }
        for (pair, el) in regs.chunks(2).zip((0..).step_by(2)) {
            let addr = self.address(g, el);
            if dtype.elem_bytes() == 2 {
                let word = g.w.reg(Class::B32);
                g.w.ins(format!("mov.b32 {word}, {{{}, {}}}", pair[0], pair[1]));
                g.w.ins(format!("st.shared.b32 [{addr}], {word}"));
            } else {
                g.w.ins(format!("st.shared.v2.{ty} [{addr}], {{{}, {}}}", pair[0], pair[1]));
            }
        }
    }

    /// Loads the fragment's elements into new registers.
    pub(super) fn load(&mut self, g: &mut Gen, dtype: DType) -> Vec<String> {
        let ty = mem_type(dtype);
        let regs: Vec<String> = (0..self.offsets.len()).map(|_| g.w.reg_for(dtype)).collect();
        if !self.paired {
            for (el, r) in regs.iter().enumerate() {
                let addr = self.address(g, el);
                g.w.ins(format!("ld.shared.{ty} {r}, [{addr}]"));
            }
            return regs;
        }
        for (pair, el) in regs.chunks(2).zip((0..).step_by(2)) {
            let addr = self.address(g, el);
            if dtype.elem_bytes() == 2 {
                let word = g.w.reg(Class::B32);
                g.w.ins(format!("ld.shared.b32 {word}, [{addr}]"));
                g.w.ins(format!("mov.b32 {{{}, {}}}, {word}", pair[0], pair[1]));
            } else {
                g.w.ins(format!("ld.shared.v2.{ty} {{{}, {}}}, [{addr}]", pair[0], pair[1]));
            }
        }
        regs
    }
}
