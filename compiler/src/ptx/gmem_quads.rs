//! Register stores of 16-bit `Wgmma` arrays to global tiles, eight elements (16 bytes) a thread
//! at a time.
//!
//! In the WGMMA layout the four threads of a quad (lanes 4g .. 4g + 3) hold each 8-column group of
//! a row two elements apiece, so a paired store (`gmem_pairs`) writes 4 bytes a thread and each of
//! a warp's store instructions reaches eight rows 16 bytes at a time. Here each thread packs its
//! pairs into words, and the words of four neighbouring groups (32 columns of a row) are
//! transposed across the quad: two rounds of `shfl.sync.bfly` exchange half of them with the lane
//! one apart and then two apart, after which thread t holds group t whole and stores it with one
//! `st.global.v4.b32`. A quarter of the store instructions, each writing whole 32-byte sectors:
//! the attention forward's store of O took a third of the time it did in pairs (on the H200), and
//! the next unit's Q loaded in half the time (its load had presumably queued behind the stores).
//!
//! The groups must start 16-byte aligned: the array's last dimension a multiple of 8 (decided as
//! `gmem_pairs` decides evenness, at compile time or with one branch) and the tile's a multiple
//! of 32. With a last dimension that is a multiple of 8, a group lies wholly inside a row or wholly
//! past its end, so the bounds test is one per group. Every lane of the warp takes part in the
//! shuffles, as in the register reductions.

use std::collections::BTreeMap;

use super::gen::Gen;
use super::gmem_walk::Walk;
use super::layout::Frag;
use super::writer::Class;
use crate::types::{DType, Layout};

/// Columns of a row that one quad's transposition covers: four 8-column groups.
const SPAN: i64 = 32;

/// Whether a `layout` array of `dtype` and `shape` stores to tiles `tile_last` wide along the last
/// dimension in runs of eight.
pub(super) fn applies(layout: Layout, dtype: DType, shape: &[i64], tile_last: i64) -> bool {
    let columns = shape.last().copied().unwrap_or(0);
    layout == Layout::Wgmma && matches!(dtype, DType::Bf16 | DType::F16) && columns % SPAN == 0 && tile_last % SPAN == 0
}

/// Stores `regs`, the elements of `frag` (a `Wgmma` fragment), to the tile at block `index` of
/// shape `tile` of parameter `param` (at global address `base`).
pub(super) fn store(
    g: &mut Gen,
    (base, param, index, tile): (&str, usize, &[String], &[i64]),
    frag: &Frag,
    regs: &[String],
    dtype: DType,
) {
    // After the transposition thread t of a quad holds columns 8t .. 8t + 7 of each span.
    let (row, column) = (g.lanes.row16.clone(), g.w.reg(Class::B32));
    g.w.ins(format!("shl.b32 {column}, {}, 3", g.lanes.t));
    let walk = Walk::new(g, base, param, index, tile, &[row, column], dtype);
    let odd = lane_bit(g, 1);
    let high = lane_bit(g, 2);
    let Some(spans) = spans(g, frag, regs) else {
        g.internal("a WGMMA fragment whose pairs do not fill spans of 32 columns");
        return;
    };
    for ((row, span), mut words) in spans {
        // Thread t's word c is (group c of the span, columns 2t, 2t + 1); exchanging the words
        // whose bit differs from t's, bit by bit, leaves it holding (group t, columns 2c, 2c + 1).
        exchange(g, &odd, &mut words, [0, 1], 1);
        exchange(g, &odd, &mut words, [2, 3], 1);
        exchange(g, &high, &mut words, [0, 2], 2);
        exchange(g, &high, &mut words, [1, 3], 2);
        let (addr, inside) = walk.run(g, &[row, SPAN * span], 8);
        g.w.ins(format!("@{inside} st.global.v4.b32 [{addr}], {{{}}}", words.join(", ")));
    }
}

/// The thread's pairs packed into words, by (row offset, span): word c of a span holds the pair
/// of its group c. None unless the fragment is pairs of two coordinates that fill every span.
fn spans(g: &mut Gen, frag: &Frag, regs: &[String]) -> Option<BTreeMap<(i64, i64), [String; 4]>> {
    let mut spans: BTreeMap<(i64, i64), [Option<String>; 4]> = BTreeMap::new();
    for (offsets, pair) in frag.offsets.chunks(2).zip(regs.chunks(2)) {
        let ([first, second], [a, b]) = (offsets, pair) else { return None };
        let (&[row, column], true) = (first.as_slice(), second == &vec![first[0], first[1] + 1]) else {
            return None;
        };
        if column % 8 != 0 {
            return None;
        }
        let word = g.w.reg(Class::B32);
        g.w.ins(format!("mov.b32 {word}, {{{a}, {b}}}"));
        spans.entry((row, column / SPAN)).or_default()[(column % SPAN / 8) as usize] = Some(word);
    }
    spans.into_iter().map(|(at, [a, b, c, d])| Some((at, [a?, b?, c?, d?]))).collect()
}

/// The predicate "bit `bit` of the lane's place in its quad is set".
fn lane_bit(g: &mut Gen, bit: u32) -> String {
    let (bits, set) = (g.w.reg(Class::B32), g.w.reg(Class::Pred));
    g.w.ins(format!("and.b32 {bits}, {}, {bit}", g.lanes.t));
    g.w.ins(format!("setp.ne.u32 {set}, {bits}, 0"));
    set
}

/// One exchange with the lane `lanes` apart: where `upper` holds, the thread sends word `first`
/// and receives the partner's `second` in its place; elsewhere it sends `second` and receives in
/// its place the partner's `first`.
fn exchange(g: &mut Gen, upper: &str, words: &mut [String; 4], [first, second]: [usize; 2], lanes: u32) {
    let (sent, got) = (g.w.reg(Class::B32), g.w.reg(Class::B32));
    g.w.ins(format!("selp.b32 {sent}, {}, {}, {upper}", words[first], words[second]));
    g.w.ins(format!("shfl.sync.bfly.b32 {got}, {sent}, {lanes}, 31, -1"));
    let (a, b) = (g.w.reg(Class::B32), g.w.reg(Class::B32));
    g.w.ins(format!("selp.b32 {a}, {got}, {}, {upper}", words[first]));
    g.w.ins(format!("selp.b32 {b}, {}, {got}, {upper}", words[second]));
    words[first] = a;
    words[second] = b;
}
