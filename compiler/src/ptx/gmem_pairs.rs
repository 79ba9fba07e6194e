//! Register loads and stores of global tiles two elements at a time.
//!
//! The fragments of `Wgmma`, `WgmmaCol`, `MmaAcc` and `MmaLhs` arrays hold their elements in pairs
//! side by side along the last dimension (columns 2t and 2t + 1 of an 8-column group). Such a pair
//! moves with one `ld.global.v2` / `st.global.v2` (a pair of 16-bit floats: one `st.global.b32`):
//! half the instructions, and the four threads that share a row of 8 columns fill whole 32-byte
//! sectors instead of every other 4 bytes of them.
//!
//! A vector access needs an address aligned to its size. The array starts aligned (tensors are
//! whole allocations) and the pair's first column is even, so every row must start at an even
//! column: the last dimension must be even. A static extent decides at compile time, and so does a
//! runtime one that the launch checks to be a multiple of an even tile extent; any other runtime
//! extent chooses at run time between the paired code and the element-wise code, with one branch
//! that every thread takes alike. With an even last dimension no pair straddles the end of a row, so
//! the bounds test is one per pair.

use super::gen::Gen;
use super::gmem_walk::Walk;
use super::layout::Frag;
use super::memory::{gmem_dims, mem_type};
use super::writer::Class;
use crate::types::DType;
use tessel_ir::program::{DimSpec, ParamKind};

/// Whether every row of an array starts at a multiple of some number of elements.
enum Aligned {
    Yes,
    No,
    /// Known at run time only: the predicate "the last dimension is a multiple".
    Runtime(String),
}

/// Whether `frag` of a `dtype` array, in tiles `tile_last` wide along the last dimension, moves in
/// pairs: its elements come two by two along the last dimension, each pair's first at an even
/// coordinate. (Booleans and bytes stay element-wise: they are widened to registers one by one.)
pub(super) fn pairs(frag: &Frag, dtype: DType, tile_last: i64) -> bool {
    let wide = dtype != DType::Bool && dtype.elem_bytes() >= 2;
    let side_by_side = |p: &[Vec<i64>]| match p {
        [a, b] => match (a.split_last(), b.split_last()) {
            (Some((&x, lead_a)), Some((&y, lead_b))) => x % 2 == 0 && y == x + 1 && lead_a == lead_b,
            _ => false,
        },
        _ => false,
    };
    wide && frag.even_base && !frag.flat && tile_last % 2 == 0 && frag.offsets.chunks(2).all(side_by_side)
}

/// Emits `paired` where the rows of parameter `param` keep pairs aligned and `single` where they do
/// not; both, behind a branch on the last dimension's parity, where only the launch knows it.
pub(super) fn by_parity(g: &mut Gen, param: usize, paired: impl FnOnce(&mut Gen), single: impl FnOnce(&mut Gen)) {
    by_multiple(g, param, 2, ["odd_rows", "pairs_done"], paired, single);
}

/// Emits `aligned` where every row of parameter `param` starts at a multiple of `multiple` (a power
/// of two) elements and `other` where not; both, behind a branch that every thread takes alike,
/// where only the launch knows it (its labels named after `labels`: the other code's, the end's).
pub(super) fn by_multiple(
    g: &mut Gen,
    param: usize,
    multiple: i64,
    labels: [&str; 2],
    aligned: impl FnOnce(&mut Gen),
    other: impl FnOnce(&mut Gen),
) {
    match alignment(g, param, multiple) {
        Aligned::Yes => aligned(g),
        Aligned::No => other(g),
        Aligned::Runtime(yes) => {
            let (not, done) = (g.w.label(labels[0]), g.w.label(labels[1]));
            g.w.ins(format!("@!{yes} bra {not}"));
            aligned(g);
            g.w.ins(format!("bra.uni {done}"));
            g.w.put_label(&not);
            other(g);
            g.w.put_label(&done);
        }
    }
}

/// Whether parameter `param`'s last dimension is a multiple of `multiple`: static, implied by a
/// divisibility the launch checks (a tile whose extent along it is a multiple), or tested here.
fn alignment(g: &mut Gen, param: usize, multiple: i64) -> Aligned {
    // An immediate for a static dimension, else the runtime dimension's register.
    let Some(extent) = gmem_dims(g, param).pop() else { return Aligned::No };
    if let Ok(v) = extent.parse::<i64>() {
        return if v % multiple == 0 { Aligned::Yes } else { Aligned::No };
    }
    let last = match g.prog.params.get(param).map(|p| &p.kind) {
        Some(ParamKind::Gmem { shape, .. }) => match shape.last() {
            Some(DimSpec::Runtime(i)) => Some(*i),
            _ => None,
        },
        _ => None,
    };
    let checked = |(dim, tile, _): &(usize, usize, String)| Some(*dim) == last && *tile as i64 % multiple == 0;
    if g.prog.divisibility.iter().any(checked) {
        return Aligned::Yes;
    }
    let (bits, yes) = (g.w.reg(Class::B32), g.w.reg(Class::Pred));
    g.w.ins(format!("and.b32 {bits}, {extent}, {}", multiple - 1));
    g.w.ins(format!("setp.eq.u32 {yes}, {bits}, 0"));
    Aligned::Runtime(yes)
}

/// Stores `regs` (the fragment's elements, in order) pair by pair.
///
/// A pair of 16-bit floats is packed into one 32-bit register outside the store's predicate and
/// stored as a word. Given `@p st.global.v2.b16 [a], {x, y}`, ptxas copied every pair into one and
/// the same scratch register under `p`, so that each store waited for the one before it to have
/// read that register (the epilogue's largest stall in the attention forward's profile; timed
/// the same on the H200, as the other warpgroup's work hid it).
pub(super) fn store(g: &mut Gen, walk: &Walk, frag: &Frag, regs: &[String], dtype: DType) {
    let ty = mem_type(dtype);
    let half_floats = matches!(dtype, DType::Bf16 | DType::F16);
    for (offsets, pair) in frag.offsets.iter().step_by(2).zip(regs.chunks(2)) {
        let (addr, inside) = walk.pair(g, offsets);
        if half_floats {
            let word = g.w.reg(Class::B32);
            g.w.ins(format!("mov.b32 {word}, {{{}, {}}}", pair[0], pair[1]));
            g.w.ins(format!("@{inside} st.global.b32 [{addr}], {word}"));
        } else {
            g.w.ins(format!("@{inside} st.global.v2.{ty} [{addr}], {{{}, {}}}", pair[0], pair[1]));
        }
    }
}

/// Loads the fragment's elements into `regs` pair by pair; elements outside the array read as 0.
pub(super) fn load(g: &mut Gen, walk: &Walk, frag: &Frag, regs: &[String], dtype: DType) {
    let ty = mem_type(dtype);
    for (offsets, pair) in frag.offsets.iter().step_by(2).zip(regs.chunks(2)) {
        let (addr, inside) = walk.pair(g, offsets);
        let zero = g.const_reg(dtype, 0.0);
        for r in pair {
            g.mov(dtype, r, &zero);
        }
        g.w.ins(format!("@{inside} ld.global.v2.{ty} {{{}, {}}}, [{addr}]", pair[0], pair[1]));
    }
}
