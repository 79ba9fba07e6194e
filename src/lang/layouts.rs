//! Register layouts: how a register array is spread over a warpgroup's 128 threads.

use super::sealed::Sealed;

/// A register layout: one of the types of the module [`Layout`], such as [`Layout::Wgmma`].
///
/// Operations that take a layout argument (`.load(Layout::Strided)`, `.to_layout(Layout::Wgmma)`,
/// `.broadcast([64, 64], Layout::Wgmma)`) are generic over it, and their result carries it.
pub trait RegisterLayout: Sealed {}

#[allow(non_snake_case)]
pub mod Layout {
    //! The register layouts, written `Layout::Wgmma` and so on, as values (`.load(Layout::Wgmma)`)
    //! and in types (`Regs<f32, 64, 64, Layout::Wgmma>`).
    //!
    //! A register array is distributed over the warpgroup's 128 threads by its layout. The layout is
    //! part of the array's type: elementwise operations need equal layouts (a [`Splat`] array
    //! combines with anything), [`to_layout`](crate::lang::Regs::to_layout) moves data between layouts,
    //! [`layout_cast`](crate::lang::Regs::layout_cast) reinterprets where the fragments coincide, and a
    //! value carried around a loop must leave the body in the layout it entered with.
    //!
    //! | layout | shapes | made by | taken by |
    //! |---|---|---|---|
    //! | [`Wgmma`] | `[M, N]`, M a multiple of 64, N of 8 | `acc.load()`, loads, [`iota`](crate::lang::iota) | `wgmma`'s register A, `acc.store`, `Acc::from_regs`, reductions, windows |
    //! | [`WgmmaRow`] | `[M]`, M a multiple of 64 | `x.sum(1)`, `x.max(1)`, `x.min(1)` | `.broadcast([M, N], Layout::Wgmma)` |
    //! | [`WgmmaCol`] | `[N]`, N a multiple of 8 | `x.sum(0)`, `x.max(0)`, `x.min(0)` | `.broadcast([M, N], Layout::Wgmma)` |
    //! | [`Strided`] | any | loads from memory (their default) | stores, elementwise code |
    //! | [`Splat`] | any | [`splat`](crate::lang::splat) | everything: it takes the other operand's layout |
    //! | [`MmaLhs`], [`MmaRhs`], [`MmaAcc`] | `[M, K]`, `[K, N]`, `[M, N]` | loads, `to_layout` | [`mma`](crate::lang::mma) |
    //!
    //! Conversions with `.to_layout(..)`: between any two of `Wgmma`, `Strided`, `MmaLhs`, `MmaRhs`
    //! and `MmaAcc` (through shared memory, or by register moves); from `Splat` to anything; nothing
    //! into `Splat`; `WgmmaRow` and `WgmmaCol` come only from reductions and leave only by
    //! broadcasts.

    use super::{RegisterLayout, Sealed};

    /// The WGMMA accumulator fragments: a 2-D `M x N` array with M a multiple of 64 and N of 8,
    /// each warp holding 16 rows of every 64, each thread two side-by-side elements of each
    /// 8-column block in two rows (PTX ISA, "wgmma register fragment layout").
    ///
    /// What an accumulator loads as (`acc.load()`), what `wgmma` takes for a register A, what
    /// reductions reduce (to [`WgmmaRow`] or [`WgmmaCol`]) and broadcasts produce, and the only
    /// layout with windows ([`Regs::slice`](crate::lang::Regs::slice)). Loads and stores of its
    /// side-by-side pairs of 2-byte or wider elements are one `ld.global.v2`/`st.global.v2` when
    /// rows have an even length; a 16-bit array stores into a row-major shared view with
    /// `stmatrix`.
    #[derive(Clone, Copy, Debug)]
    pub struct Wgmma;

    /// One value per row of a [`Wgmma`] array: a 1-D `[M]` array, M a multiple of 64 (what
    /// reducing axis 1 gives and what `.broadcast([M, N], Layout::Wgmma)` repeats along the
    /// columns).
    #[derive(Clone, Copy, Debug)]
    pub struct WgmmaRow;

    /// One value per column of a [`Wgmma`] array: a 1-D `[N]` array, N a multiple of 8 (what
    /// reducing axis 0 gives and what `.broadcast([M, N], Layout::Wgmma)` repeats down the rows).
    #[derive(Clone, Copy, Debug)]
    pub struct WgmmaCol;

    /// Row-major, element `e` of the flattened array in thread `e % 128` (consecutive threads hold
    /// consecutive elements, so that a warp's scalar accesses coalesce): the layout of plain loads
    /// and stores, of any shape; what `.load()` gives without a layout.
    #[derive(Clone, Copy, Debug)]
    pub struct Strided;

    /// One value for every element, of any shape: what [`splat`](crate::lang::splat) makes. It
    /// combines with an array of any layout and takes that layout; `.to_layout(..)` makes it a
    /// full array of another layout. Nothing converts into it.
    #[derive(Clone, Copy, Debug)]
    pub struct Splat;

    /// The warp-level `mma` A fragments: a 2-D `[M, K]` array, `m16 x k16` per instruction
    /// (`k32`, `k64` for 8- and 4-bit operands). For a 64-row 16-bit array it coincides with
    /// [`Wgmma`] (`layout_cast` either way).
    #[derive(Clone, Copy, Debug)]
    pub struct MmaLhs;

    /// The warp-level `mma` B fragments: a 2-D `[K, N]` array, `k16 x n8` (`k32`, `k64` for 8-
    /// and 4-bit operands) per instruction.
    #[derive(Clone, Copy, Debug)]
    pub struct MmaRhs;

    /// The warp-level `mma` accumulator fragments: a 2-D `[M, N]` array, `m16 x n8` per
    /// instruction. For a 64-row array it coincides with [`Wgmma`] (`layout_cast` either way).
    #[derive(Clone, Copy, Debug)]
    pub struct MmaAcc;

    macro_rules! layouts {
        ($($l:ident),*) => { $( impl Sealed for $l {} impl RegisterLayout for $l {} )* };
    }
    layouts!(Wgmma, WgmmaRow, WgmmaCol, Strided, Splat, MmaLhs, MmaRhs, MmaAcc);
}
