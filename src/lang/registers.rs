//! Register arrays: values spread over a warpgroup's threads, and what makes and changes them.

use super::dtype::{DType, Int};
use super::layouts::{Layout, RegisterLayout};
use super::sealed::{Never, Sealed};
use super::{copy_type, only_in_kernels, Call, InKernel};
use std::marker::PhantomData;
use std::ops;

/// A register array: a value of dtype `T` and shape `S` held in the registers of a warpgroup's 128
/// threads, spread over them by the layout `L` (see [`Layout`]).
///
/// # Forms
///
/// - Written `Regs<f32, 64, 64, Layout::Wgmma>`: a dtype, dimensions, then a layout; in `let`
///   annotations and kernel functions' signatures. Most arrays need no annotation: they come from
///   [`splat`], [`iota`], loads ([`Acc::load`](super::Acc::load), [`Smem::load`](super::Smem::load),
///   [`Tile::load`](super::Tile::load)), [`mma`](super::mma) and arithmetic on them.
/// - Register arrays are values: `let y = x;` copies, and a `let mut` array may be reassigned
///   (`acc = mma(acc, a, b)`), also in a loop, in the layout it entered with.
///
/// # Operators
///
/// `+ - * / % << >> & | ^` and the comparisons `== != < <= > >=` apply elementwise to two arrays
/// of one dtype, shape and layout, or an array and a scalar (an unsuffixed literal takes the
/// array's dtype: `x * 2.0`, `2.0 * x`); `-x` and `!x` likewise. A [`Layout::Splat`] operand
/// combines with any layout and takes the other's. Comparisons give `bool` arrays; `%`, shifts and
/// `& | ^` take integers (`& | ^` also bools); `&&` and `||` take bools. PTX: `add`, `sub`, `mul`,
/// `div`, `rem`, `shl`, `shr`, `and`, `or`, `xor`, `setp`, `selp`, `neg`, `not` per element (a
/// narrow integer result wrapped back with a `bfe` of its low bits); the interpreter computes each
/// element in the dtype with PTX's rounding, and integers wrap.
///
/// # Rules
///
/// - The layout holds the shape (a `Wgmma` array is `[M, N]` with M a multiple of 64 and N of 8,
///   ..., see [`Layout`]).
/// - A warpgroup's thread holds at most 255 32-bit registers, so an array takes at most
///   `255 * 128` 32-bit words (a `64 x 256` `f32` array takes 128 per thread).
/// - A value carried around a loop (assigned in the body) leaves the body in the layout it
///   entered with.
///
/// # PTX
///
/// Each thread's elements in registers (`.f32`, `.b16`, `.b32`, .. by dtype; a `Splat` array is one
/// register until it meets another layout).
///
/// # Interpreter
///
/// A host array of the dtype's values (layouts are invisible to it).
pub struct Regs<T, S, L> {
    pub(super) never: Never,
    types: PhantomData<(T, S, L)>,
}

copy_type!(Regs<T, S, L>);
impl<T, S, L> Sealed for Regs<T, S, L> {}

/// An array of shape `shape` whose every element is `value`, in [`Layout::Splat`].
///
/// # Forms
///
/// `splat::<f32>(0.0, [64, 64])`, or `splat(x, [64, 64])` with a scalar `x` of the array's dtype.
///
/// # Rules
///
/// The value is a scalar of the dtype (an unsuffixed literal takes it); the shape's extents are
/// compile-time integers. A `Splat` array takes the layout of whatever it combines with; make it
/// a full array of a layout with `.to_layout(..)` (a loop-carried sum, for example).
///
/// # PTX
///
/// One register, `mov`ed into each element's register when it meets an array of another layout.
///
/// # Interpreter
///
/// A filled array.
///
/// # Example
///
/// ```rust
/// use tessel::prelude::*;
///
/// /// y = the row sums of x's 64 x 64 tiles, over all the tiles of a row of tiles.
/// #[kernel(grid = (M / 64))]
/// fn row_sums(x: Gmem<f32, M, N>, y: GmemMut<f32, M, 64>) {
///     let i = program_id(0);
///     let mut sum = splat::<f32>(0.0, [64, 64]).to_layout(Layout::Strided);
///     for j in 0..N / 64 {
///         sum = sum + x.tile([i, j], [64, 64]).load(Layout::Strided);
///     }
///     y.tile([i, 0], [64, 64]).store(sum);
/// }
///
/// fn main() -> tessel::Result<()> {
///     let x = HostTensor::from_fn([64, 192], |ix| ix[1] as f32)?;
///     let mut y = HostTensor::zeros([64, 64])?;
///     row_sums::interpret(&x, &mut y)?;
///     assert_eq!(y.get(&[0, 1]), Some(1.0 + 65.0 + 129.0));
///     Ok(())
/// }
/// ```
pub fn splat<'k, T: DType, S, const R: usize>(value: T, shape: [usize; R]) -> Regs<T, S, Layout::Splat>
where
    Call<'k>: InKernel,
{
    only_in_kernels()
}

/// A [`Layout::Wgmma`] array whose elements hold their index along `axis`: for masks
/// (causal attention, a ragged tile's last rows).
///
/// # Forms
///
/// `iota::<i32>([64, 128], 1)` (column indices), `iota([64, 128], 0)` (row indices, `i32`).
///
/// # Rules
///
/// An integer dtype (default `i32`); a 2-D shape that `Layout::Wgmma` holds (M a multiple of 64,
/// N of 8); `axis` a literal 0 or 1.
///
/// # PTX
///
/// A `mov` per register, from the thread's row and column.
///
/// # Interpreter
///
/// The indices.
///
/// # Example
///
/// ```rust
/// use tessel::prelude::*;
///
/// /// The lower triangle of x (a causal mask), zeros above the diagonal.
/// #[kernel(grid = (1))]
/// fn lower(x: Gmem<f32, 64, 64>, y: GmemMut<f32, 64, 64>) {
///     let v = x.tile([0, 0], [64, 64]).load(Layout::Wgmma);
///     let keep = iota::<i32>([64, 64], 1) <= iota::<i32>([64, 64], 0);
///     y.tile([0, 0], [64, 64]).store(v * keep.cast::<f32>());
/// }
///
/// fn main() -> tessel::Result<()> {
///     let x = HostTensor::from_fn([64, 64], |_| 3.0)?;
///     let mut y = HostTensor::zeros([64, 64])?;
///     lower::interpret(&x, &mut y)?;
///     assert_eq!((y.get(&[9, 9]), y.get(&[9, 10])), (Some(3.0), Some(0.0)));
///     Ok(())
/// }
/// ```
pub fn iota<'k, T: Int, S, const R: usize>(shape: [usize; R], axis: u32) -> Regs<T, S, Layout::Wgmma>
where
    Call<'k>: InKernel,
{
    only_in_kernels()
}

impl<T, S, L> Regs<T, S, L> {
    /// The elements converted to dtype `U`, keeping shape and layout; on scalars too (`s.cast::<U>()`,
    /// as `s as U`).
    ///
    /// # PTX
    ///
    /// - between floats: `cvt.rn` (to nearest even; `cvt.rn.bf16x2.f32` / `.f16x2` two at a time
    ///   for arrays), to fp8 `cvt.rn.satfinite` (saturating to the largest finite value), to `tf32`
    ///   `cvt.rna.tf32.f32`;
    /// - float to integer: `cvt.rzi.sat` (toward zero, saturating, NaN to 0);
    /// - integer to float: `cvt.rn`;
    /// - integer to a narrower-than-32-bit integer: a `bfe` of the low bits (wrapping: `300 as u8`
    ///   is 44), nothing where every value fits (`i8` to `i16`);
    /// - to `bool`: `setp.ne` against zero; from `bool`: `selp` of 1 and 0.
    ///
    /// # Interpreter
    ///
    /// The same rounding and saturation; integers wrap as Rust's `as` does.
    pub fn cast<U: DType>(self) -> Regs<U, S, L> {
        match self.never {}
    }

    /// The same bits read as dtype `U` of the same width; on scalars too (`s.bitcast::<u32>()`).
    ///
    /// # Rules
    ///
    /// `U` has `T`'s width in bits (`f32`, `i32`, `u32`, `tf32`; `bf16`, `f16`, `i16`, `u16`;
    /// `f8e4m3`, `f8e5m2`, `i8`, `u8`); `bool` has no bits to reinterpret.
    ///
    /// # PTX
    ///
    /// Nothing between registers of one kind (`f32`/`tf32`, integers of one width); `mov.b32`
    /// between `f32` and 32-bit integers, `mov.b16` between 16-bit floats and between fp8s;
    /// `cvt.s32.s16`/`cvt.u32.u16`/`cvt.s32.s8`/`cvt.u32.u8` from a 16-bit float or fp8 into the
    /// sign- or zero-extended integer, `cvt.u16.u32` (and a mask of the low byte for fp8) back.
    ///
    /// # Interpreter
    ///
    /// The same bits read as `U` (a NaN's payload is not kept: it reads as a quiet NaN).
    ///
    /// # Example
    ///
    /// ```rust
    /// use tessel::prelude::*;
    ///
    /// /// |x| by clearing the sign bit.
    /// #[kernel(grid = (1))]
    /// fn fabs(x: Gmem<f32, 64, 64>, y: GmemMut<f32, 64, 64>) {
    ///     let bits = x.tile([0, 0], [64, 64]).load(Layout::Wgmma).bitcast::<u32>();
    ///     y.tile([0, 0]).store((bits & 0x7fff_ffffu32).bitcast::<f32>());
    /// }
    ///
    /// fn main() -> tessel::Result<()> {
    ///     let x = HostTensor::from_fn([64, 64], |ix| -(ix[0] as f32))?;
    ///     let mut y = HostTensor::zeros([64, 64])?;
    ///     fabs::interpret(&x, &mut y)?;
    ///     assert_eq!(y.get(&[12, 0]), Some(12.0));
    ///     Ok(())
    /// }
    /// ```
    pub fn bitcast<U: DType>(self) -> Regs<U, S, L> {
        match self.never {}
    }

    /// The sum along `axis`: `x.sum(1)` of a `[M, N]` [`Layout::Wgmma`] array is its `[M]` row sums in
    /// [`Layout::WgmmaRow`], `x.sum(0)` its `[N]` column sums in [`Layout::WgmmaCol`]; `v.sum(0)`
    /// of a 1-D array is a scalar that every thread of the warpgroup holds.
    ///
    /// # Rules
    ///
    /// `axis` is an integer literal. A 2-D array is in `Layout::Wgmma` (convert first with
    /// `.to_layout(Layout::Wgmma)`) or `Layout::Splat` (giving a `Splat` array), `axis` 0 or 1; a
    /// 1-D array (`WgmmaRow`, `WgmmaCol`, `Strided` or `Splat`) reduces along axis 0 to a scalar.
    ///
    /// # PTX
    ///
    /// Per-thread partial results, then `shfl.sync.bfly` across the lanes that share a row (xor 1,
    /// 2) or a column (xor 4, 8, 16), the four warps' column partials (and, for a 1-D array
    /// reduced to a scalar, the four warps' partials) meeting in scratch shared memory. Floats reduce in f32 (16- and 8-bit floats rounded once, at the end); integer sums
    /// wrap to the dtype; a `bool` sum is an `or`.
    ///
    /// # Interpreter
    ///
    /// The reduction along `axis`, left to right, rounding to the dtype after each step (float
    /// sums may differ from the GPU's in the last bits).
    ///
    /// # Example
    ///
    /// ```rust
    /// use tessel::prelude::*;
    ///
    /// /// Softmax-style row statistics: each row's maximum and its sum of exp(x - max).
    /// #[kernel(grid = (M / 64))]
    /// fn stats(x: Gmem<f32, M, 64>, maxes: GmemMut<f32, M>, sums: GmemMut<f32, M>) {
    ///     let i = program_id(0);
    ///     let v = x.tile([i, 0], [64, 64]).load(Layout::Wgmma);
    ///     let m = v.max(1);
    ///     let e = exp(v - m.broadcast([64, 64], Layout::Wgmma));
    ///     maxes.tile([i], [64]).store(m);
    ///     sums.tile([i], [64]).store(e.sum(1));
    /// }
    ///
    /// fn main() -> tessel::Result<()> {
    ///     let x = HostTensor::from_fn([128, 64], |ix| if ix[1] == 5 { 2.0 } else { -1000.0 })?;
    ///     let (mut maxes, mut sums) = (HostTensor::zeros([128])?, HostTensor::zeros([128])?);
    ///     stats::interpret(&x, &mut maxes, &mut sums)?;
    ///     assert_eq!((maxes.get(&[77]), sums.get(&[77])), (Some(2.0), Some(1.0)));
    ///     Ok(())
    /// }
    /// ```
    pub fn sum<V, M: RegisterLayout>(self, axis: u32) -> Regs<T, V, M> {
        match self.never {}
    }

    /// The maximum along `axis`, as [`Regs::sum`] (NaN-ignoring, as PTX `max`). Not to be
    /// confused with the elementwise [`max(x, y)`](super::max).
    pub fn max<V, M: RegisterLayout>(self, axis: u32) -> Regs<T, V, M> {
        match self.never {}
    }

    /// The minimum along `axis`, as [`Regs::sum`]. Not to be confused with the elementwise
    /// [`min(x, y)`](super::min).
    pub fn min<V, M: RegisterLayout>(self, axis: u32) -> Regs<T, V, M> {
        match self.never {}
    }

    /// A row or column vector repeated to a 2-D array: `row.broadcast([64, 128], Layout::Wgmma)`.
    ///
    /// # Rules
    ///
    /// - A [`Layout::WgmmaRow`] `[M]` vector broadcasts to `[M, N]` (each row its value), a
    ///   [`Layout::WgmmaCol`] `[N]` vector to `[M, N]` (each column its value), both into
    ///   `Layout::Wgmma` only; a [`Layout::Splat`] array to any shape its target layout holds.
    /// - Other layouts do not broadcast: reduce first.
    ///
    /// # PTX
    ///
    /// Register copies.
    ///
    /// # Interpreter
    ///
    /// Repetition along the missing axis.
    pub fn broadcast<V, M: RegisterLayout, const R: usize>(self, shape: [usize; R], layout: M) -> Regs<T, V, M> {
        match self.never {}
    }

    /// The same values in another layout: `x.to_layout(Layout::Wgmma)`.
    ///
    /// # Rules
    ///
    /// Between any two of `Wgmma`, `Strided`, `MmaLhs`, `MmaRhs` and `MmaAcc`; from `Splat` to
    /// anything; nothing into `Splat`; `WgmmaRow` and `WgmmaCol` only to themselves. The target
    /// holds the shape.
    ///
    /// # PTX
    ///
    /// Through the warpgroup's scratch shared memory (`stmatrix`/`ldmatrix`, or
    /// `st.shared`/`ld.shared`, between warpgroup barriers), or register moves where the fragments
    /// already line up; the scratch counts toward the kernel's shared memory.
    ///
    /// # Interpreter
    ///
    /// The same values (layouts are invisible to it).
    ///
    /// # Example
    ///
    /// ```rust
    /// use tessel::prelude::*;
    ///
    /// /// Column sums of a tile loaded row-major.
    /// #[kernel(grid = (1))]
    /// fn col_sums(x: Gmem<f32, 64, 16>, y: GmemMut<f32, 16>) {
    ///     let v = x.tile([0, 0], [64, 16]).load(Layout::Strided).to_layout(Layout::Wgmma);
    ///     y.tile([0], [16]).store(v.sum(0));
    /// }
    ///
    /// fn main() -> tessel::Result<()> {
    ///     let x = HostTensor::from_fn([64, 16], |ix| ix[1] as f32)?;
    ///     let mut y = HostTensor::zeros([16])?;
    ///     col_sums::interpret(&x, &mut y)?;
    ///     assert_eq!(y.get(&[3]), Some(192.0));
    ///     Ok(())
    /// }
    /// ```
    pub fn to_layout<M: RegisterLayout>(self, layout: M) -> Regs<T, S, M> {
        match self.never {}
    }

    /// The same registers read in another layout, without moving data:
    /// `x.layout_cast(Layout::MmaAcc)`.
    ///
    /// # Rules
    ///
    /// Only where every element stays in its thread and register: `Wgmma` and `MmaAcc` for a
    /// 64-row 2-D array, `Wgmma` and `MmaLhs` for a 64-row array of a 16-bit dtype (either way),
    /// and a `Splat` array into any layout; otherwise use [`Regs::to_layout`].
    ///
    /// # PTX
    ///
    /// Nothing.
    ///
    /// # Interpreter
    ///
    /// The same values.
    ///
    /// # Example
    ///
    /// ```rust
    /// use tessel::prelude::*;
    ///
    /// /// C = A @ B + D: D loaded in the WGMMA layout starts the mma accumulator, for free.
    /// #[kernel(grid = (1))]
    /// fn mma_add(a: Gmem<bf16, 64, 16>, b: Gmem<bf16, 16, 8>, d: Gmem<f32, 64, 8>, c: GmemMut<f32, 64, 8>) {
    ///     let acc = d.tile([0, 0], [64, 8]).load(Layout::Wgmma).layout_cast(Layout::MmaAcc);
    ///     let lhs = a.tile([0, 0], [64, 16]).load(Layout::MmaLhs);
    ///     let rhs = b.tile([0, 0], [16, 8]).load(Layout::MmaRhs);
    ///     c.tile([0, 0], [64, 8]).store(mma(acc, lhs, rhs));
    /// }
    ///
    /// fn main() -> tessel::Result<()> {
    ///     let a = HostTensor::from_fn([64, 16], |_| bf16::ONE)?;
    ///     let b = HostTensor::from_fn([16, 8], |_| bf16::ONE)?;
    ///     let d = HostTensor::from_fn([64, 8], |ix| ix[0] as f32)?;
    ///     let mut c = HostTensor::zeros([64, 8])?;
    ///     mma_add::interpret(&a, &b, &d, &mut c)?;
    ///     assert_eq!(c.get(&[40, 3]), Some(56.0));
    ///     Ok(())
    /// }
    /// ```
    pub fn layout_cast<M: RegisterLayout>(self, layout: M) -> Regs<T, S, M> {
        match self.never {}
    }

    /// A static window of a [`Layout::Wgmma`] array: `done.slice([.., 0..128])`.
    ///
    /// # Rules
    ///
    /// Only `Layout::Wgmma` arrays have windows (in other layouts a window's elements would have
    /// to move between threads), and a window covers whole 64-row, 8-column blocks, in shape and
    /// offset. Bounds are known when the kernel compiles, as for [`Smem::slice`](super::Smem::slice).
    ///
    /// # PTX
    ///
    /// Nothing: the window is some of the array's registers.
    ///
    /// A tile's result kept as a converted copy, `let done = acc.load().cast::<bf16>();` (half the
    /// accumulator's registers for 16-bit outputs), can so be stored a window at a time while the
    /// next tile's first `wgmma`s run in the whole accumulator: the `matmul!` kernels of the
    /// `tessel-kernels` crate store one 128-column window per K step.
    ///
    /// # Interpreter
    ///
    /// A copy of those elements.
    ///
    /// # Example
    ///
    /// ```rust
    /// use tessel::prelude::*;
    ///
    /// /// Splits each 64 x 128 tile of x into its left and right halves.
    /// #[kernel(grid = (M / 64))]
    /// fn split(x: Gmem<f32, M, 128>, left: GmemMut<f32, M, 64>, right: GmemMut<f32, M, 64>) {
    ///     let i = program_id(0);
    ///     let v = x.tile([i, 0], [64, 128]).load(Layout::Wgmma);
    ///     left.tile([i, 0], [64, 64]).store(v.slice([.., 0..64]));
    ///     right.tile([i, 0], [64, 64]).store(v.slice([.., 64..128]));
    /// }
    ///
    /// fn main() -> tessel::Result<()> {
    ///     let x = HostTensor::from_fn([64, 128], |ix| ix[1] as f32)?;
    ///     let (mut left, mut right) = (HostTensor::zeros([64, 64])?, HostTensor::zeros([64, 64])?);
    ///     split::interpret(&x, &mut left, &mut right)?;
    ///     assert_eq!((left.get(&[0, 3]), right.get(&[0, 3])), (Some(3.0), Some(67.0)));
    ///     Ok(())
    /// }
    /// ```
    pub fn slice<W, V>(self, window: W) -> Regs<T, V, L> {
        match self.never {}
    }
}

/// The math functions in method form: `x.exp2()` is [`exp2(x)`](super::exp2), on register
/// arrays and scalars alike.
macro_rules! math_methods {
    ($($f:ident),*) => {
        impl<T, S, L> Regs<T, S, L> {
            $(
                #[doc = concat!("`x.", stringify!($f), "()` is [`", stringify!($f), "(x)`](super::", stringify!($f), "), elementwise (also on scalars).")]
                pub fn $f(self) -> Self {
                    match self.never {}
                }
            )*
        }
    };
}
math_methods!(exp2, exp, log2, log, sqrt, rsqrt, recip, tanh, abs, floor, ceil, round, trunc);

/// The binary operators of the language: elementwise on two arrays of one dtype, shape and layout,
/// or an array and a scalar of its dtype (see "Operators" on [`Regs`]).
macro_rules! binary_ops {
    ($($tr:ident $f:ident),*) => {
        $(
            impl<T, S, L> ops::$tr for Regs<T, S, L> {
                type Output = Self;
                fn $f(self, rhs: Self) -> Self {
                    match self.never {}
                }
            }
            impl<T: DType, S, L> ops::$tr<T> for Regs<T, S, L> {
                type Output = Self;
                fn $f(self, rhs: T) -> Self {
                    match self.never {}
                }
            }
        )*
    };
}
binary_ops!(Add add, Sub sub, Mul mul, Div div, Rem rem, Shl shl, Shr shr, BitAnd bitand, BitOr bitor, BitXor bitxor);

impl<T, S, L> ops::Neg for Regs<T, S, L> {
    type Output = Self;
    fn neg(self) -> Self {
        match self.never {}
    }
}

impl<T, S, L> ops::Not for Regs<T, S, L> {
    type Output = Self;
    fn not(self) -> Self {
        match self.never {}
    }
}
