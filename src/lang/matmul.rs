//! Matrix products on the tensor cores: WGMMA accumulators, `wgmma`, `wgmma_wait`, and the
//! warp-level `mma`.

use super::dtype::{Accumulator, DType, MmaOperand, WgmmaOperand};
use super::layouts::{Layout, RegisterLayout};
use super::memory::Smem;
use super::registers::Regs;
use super::sealed::{Never, Sealed};
use super::{copy_type, only_in_kernels, Call, InKernel};
use std::marker::PhantomData;

/// A WGMMA accumulator: an `M x N` array of dtype `T` in the registers of one warpgroup, which
/// [`wgmma`] adds products into. Allocated, zeroed, by [`run_scoped`](super::run_scoped):
/// `run_scoped(|acc: Acc<f32, 64, 128>| ..)`.
///
/// # Forms
///
/// - `acc: Acc<T, M, N>` as a parameter of `run_scoped`'s closure (zeroed), or `|acc|` of
///   [`run_state`](super::run_state), initialised from registers by [`Acc::from_regs`].
/// - Views: [`acc.slice([.., 0..128])`](Acc::slice), a window that `wgmma` may write.
/// - [`acc.load()`](Acc::load) reads it, [`acc.store(x)`](Acc::store) overwrites it.
///
/// # Rules
///
/// - `T` is `f32`, `f16` or `i32` ([`Accumulator`]); `u32` is not (integer WGMMA accumulates in
///   signed 32-bit).
/// - M is a multiple of 64 (one `m64` tile per instruction), N a multiple of 8; the array fits the
///   warpgroup's registers (at most 255 per thread, e.g. `Acc<f32, 64, 256>` takes 128).
/// - Accumulators are per warpgroup: allocated in a `run_scoped` without `collective_axes` (in a
///   kernel of several warpgroups, each allocates its own).
/// - An accumulator cannot leave its scope: return `acc.load()`.
/// - `wgmma` is asynchronous: read the accumulator only after a [`wgmma_wait`] leaves no group in
///   flight that writes it.
///
/// # PTX
///
/// Registers (`.f32`, `.b32` for `f16` pairs, `.s32`) in the WGMMA fragment layout
/// ([`Layout::Wgmma`]), zeroed with `mov` at allocation.
///
/// # Interpreter
///
/// A zeroed host array of the dtype.
///
/// # Example
///
/// ```rust
/// use tessel::prelude::*;
///
/// /// C = A @ B + C: the accumulator starts from C's tile, through `run_state`.
/// #[kernel(grid = (M / 64, N / 64))]
/// fn matmul_add(a: Gmem<bf16, M, K>, b: Gmem<bf16, K, N>, c: GmemMut<f32, M, N>) {
///     let (i, j) = (program_id(0), program_id(1));
///     let c0 = c.tile([i, j], [64, 64]).load(Layout::Wgmma);
///     run_state(Acc::from_regs(c0), |acc| {
///         run_scoped(|a_s: Smem<bf16, 64, 64, Swizzle128>, b_s: Smem<bf16, 64, 64, Swizzle128>, bar: Barrier<2>| {
///             for k in 0..K / 64 {
///                 copy_gmem_to_smem(a.tile([i, k]), a_s, bar);
///                 copy_gmem_to_smem(b.tile([k, j]), b_s, bar);
///                 barrier_wait(bar);
///                 wgmma(acc, a_s, b_s);
///                 wgmma_wait(0);
///             }
///         });
///         c.tile([i, j]).store(acc.load());
///     });
/// }
///
/// fn main() -> tessel::Result<()> {
///     let a = HostTensor::from_fn([64, 128], |ix| bf16::from_f32((ix[1] % 3) as f32))?;
///     let b = HostTensor::from_fn([128, 64], |_| bf16::ONE)?;
///     let mut c = HostTensor::from_fn([64, 64], |_| 1000.0)?;
///     matmul_add::interpret(&a, &b, &mut c)?;
///     let row: f32 = (0..128).map(|k| (k % 3) as f32).sum();
///     assert_eq!(c.get(&[7, 9]), Some(1000.0 + row));
///     Ok(())
/// }
/// ```
pub struct Acc<T, S> {
    pub(super) never: Never,
    types: PhantomData<(T, S)>,
}

copy_type!(Acc<T, S>);
impl<T, S> Sealed for Acc<T, S> {}

impl<T, S> Acc<T, S> {
    /// An accumulator initialised from a register array, for [`run_state`](super::run_state):
    /// `run_state(Acc::from_regs(x), |acc| ..)`.
    ///
    /// # Rules
    ///
    /// Only as `run_state`'s first argument. `x` is in [`Layout::Wgmma`] (its shape an
    /// accumulator's: M a multiple of 64, N of 8) and not of an unsigned dtype (convert to `i32`
    /// first).
    ///
    /// # PTX
    ///
    /// Register moves into the accumulator's fragments.
    ///
    /// # Interpreter
    ///
    /// An accumulator holding `x`.
    pub fn from_regs(x: Regs<T, S, Layout::Wgmma>) -> Self {
        match x.never {}
    }

    /// The accumulator's values, as a [`Layout::Wgmma`] register array (a copy).
    ///
    /// # Rules
    ///
    /// `acc.load()` takes no layout other than `Layout::Wgmma` (convert the result with
    /// `.to_layout(..)`). Wait for the `wgmma`s that write it first ([`wgmma_wait`]).
    ///
    /// # PTX
    ///
    /// Register moves. A read of accumulator registers that no `wgmma` in flight writes does not
    /// wait, so one half of an accumulator can be read while `wgmma`s run in the other
    /// ([`Acc::slice`]).
    ///
    /// # Interpreter
    ///
    /// A copy; a read of elements that a `wgmma` in flight writes is a race it reports.
    pub fn load(self) -> Regs<T, S, Layout::Wgmma> {
        match self.never {}
    }

    /// Overwrites the accumulator with a register array.
    ///
    /// # Rules
    ///
    /// The value has the accumulator's dtype and shape, in [`Layout::Wgmma`] or
    /// [`Layout::Splat`] (`acc.store(splat::<f32>(0.0, [64, 128]))` zeroes it); the whole
    /// accumulator, not a window.
    ///
    /// # PTX
    ///
    /// Register moves.
    ///
    /// # Interpreter
    ///
    /// A copy; a write of elements that a `wgmma` in flight writes is a race it reports.
    pub fn store<L: RegisterLayout>(self, value: Regs<T, S, L>) {
        match self.never {}
    }

    /// A window of the accumulator, `acc.slice([.., 0..128])`, that [`wgmma`] may write: so two
    /// tiles can take turns in one accumulator, one tile's `wgmma`s running in one half while the
    /// other half's result is read and stored.
    ///
    /// # Rules
    ///
    /// Whole 64-row, 8-column blocks, in shape and offset; bounds known when the kernel compiles
    /// (literals, consts, `#[unroll]` counters and immutable `let`s of them); not a store's
    /// destination.
    ///
    /// Such a loop needs a `wgmma_wait(0)` at the top of each turn, which costs nothing (nothing
    /// is in flight there) and shows ptxas that the other half's `wgmma`s are complete: without
    /// it, ptxas, not following completions around the loop, waits for the `wgmma`s in flight
    /// before the read (its message C7517).
    ///
    /// # PTX
    ///
    /// Nothing: the window is some of the accumulator's registers.
    ///
    /// The `matmul_overlapped!` kernels of the `tessel-kernels` crate are the pattern.
    ///
    /// # Interpreter
    ///
    /// A view of those elements.
    ///
    /// # Example
    ///
    /// ```rust
    /// use tessel::prelude::*;
    ///
    /// /// C = A @ B, a 64 x 128 tile per program, each 64-column half a wgmma of its own.
    /// #[kernel(grid = (M / 64, N / 128))]
    /// fn halves(a: Gmem<bf16, M, K>, b: Gmem<bf16, K, N>, c: GmemMut<f32, M, N>) {
    ///     let (i, j) = (program_id(0), program_id(1));
    ///     run_scoped(
    ///         |acc: Acc<f32, 64, 128>,
    ///          a_s: Smem<bf16, 64, 64, Swizzle128>,
    ///          b_s: Smem<bf16, 2, 64, 64, Swizzle128>,
    ///          bar: Barrier<3>| {
    ///             for k in 0..K / 64 {
    ///                 copy_gmem_to_smem(a.tile([i, k]), a_s, bar);
    ///                 copy_gmem_to_smem(b.tile([k, 2 * j]), b_s.at(0), bar);
    ///                 copy_gmem_to_smem(b.tile([k, 2 * j + 1]), b_s.at(1), bar);
    ///                 barrier_wait(bar);
    ///                 wgmma(acc.slice([.., 0..64]), a_s, b_s.at(0));
    ///                 wgmma(acc.slice([.., 64..128]), a_s, b_s.at(1));
    ///                 wgmma_wait(0);
    ///             }
    ///             c.tile([i, j]).store(acc.load());
    ///         },
    ///     );
    /// }
    ///
    /// fn main() -> tessel::Result<()> {
    ///     let a = HostTensor::from_fn([64, 64], |ix| bf16::from_f32((ix[0] == ix[1]) as u8 as f32))?;
    ///     let b = HostTensor::from_fn([64, 256], |ix| bf16::from_f32(ix[1] as f32))?;
    ///     let mut c = HostTensor::zeros([64, 256])?;
    ///     halves::interpret(&a, &b, &mut c)?; // A is the identity: C = B
    ///     assert_eq!((c.get(&[2, 70]), c.get(&[2, 250])), (Some(70.0), Some(250.0)));
    ///     Ok(())
    /// }
    /// ```
    pub fn slice<W, V>(self, window: W) -> Acc<T, V> {
        match self.never {}
    }
}

/// What [`wgmma`] takes as A for an accumulator of dtype `D`: a shared-memory buffer or view
/// ([`Smem`]), or a register array in [`Layout::Wgmma`] ([`Regs`]), of an operand dtype of `D`.
pub trait WgmmaA<D: Accumulator>: Sealed {}

/// What [`wgmma`] takes as B for an accumulator of dtype `D`: a shared-memory buffer or view
/// ([`Smem`]) of an operand dtype of `D` (never registers).
pub trait WgmmaB<D: Accumulator>: Sealed {}

impl<D: Accumulator, E: WgmmaOperand<D>, S, X> WgmmaA<D> for Smem<E, S, X> {}
impl<D: Accumulator, E: WgmmaOperand<D>, S> WgmmaA<D> for Regs<E, S, Layout::Wgmma> {}
impl<D: Accumulator, E: WgmmaOperand<D>, S, X> WgmmaB<D> for Smem<E, S, X> {}

/// `acc += a @ b` on the tensor cores, for the warpgroup: A is `M x K`, B is `K x N`, the
/// accumulator `M x N`.
///
/// # Forms
///
/// - `wgmma(acc, a_s, b_s)`: A and B in shared memory.
/// - `wgmma(acc, a, b_s)` with `a` a [`Layout::Wgmma`] register array (16-bit, fp8 or `i8`; not
///   `tf32`).
/// - `wgmma(acc, a, b, accumulate = c)`: with the `bool` `c` false, `acc = a @ b` (a new tile
///   without zeroing the accumulator, CUTLASS's `ScaleOut::Zero`): a persistent kernel writes
///   `accumulate = k > 0`.
/// - `acc` may be a window, [`acc.slice([.., 0..128])`](Acc::slice).
///
/// # Rules
///
/// Checked in the order Mosaic GPU checks them:
/// - dtypes ([`WgmmaOperand`]): A and B of one dtype (the two fp8 dtypes mix), the accumulator
///   one that the operands accumulate into: `f16` into `f32` or `f16`; `bf16` and `tf32` into
///   `f32`; fp8 into `f32` or `f16`; `i8` into `i32`; no unsigned operands.
/// - shapes: all 2-D; M a multiple of 64; N a multiple of 8 up to 256 (for `i8`: 8, 16, 24, 32,
///   then 48 to 256 in steps of 16); A's K equals B's and is a multiple of the instruction's K
///   (16 for 16-bit, 8 for `tf32`, 32 for 8-bit operands); the accumulator is `M x N`.
/// - shared-memory operands are swizzled ([`Swizzle128`](super::Swizzle128), ..), A and B
///   alike.
/// - major-ness: A is K-major when stored `[M, K]`, B when stored `[N, K]` and passed as
///   `b_s.t()`; the other way round (MN-major: B stored `[K, N]`, A through `.t()` or
///   [`Transposed`](super::Transposed)) only for 16-bit operands.
/// - the operands are not overwritten, and the accumulator not read, until a [`wgmma_wait`]
///   leaves no group in flight that uses them; ordinary stores into an operand buffer are
///   committed first ([`commit_smem`](super::commit_smem)).
///
/// # PTX
///
/// `wgmma.fence.sync.aligned`, then per 64-row tile and K step
/// `wgmma.mma_async.sync.aligned.m64nNkK.<d>.<a>.<b>` with shared-memory matrix descriptors (or
/// A's registers), with `accumulate`'s value as the scale-d predicate of each tile's first
/// instruction, then `wgmma.commit_group.sync.aligned`: one group per call, in flight until
/// [`wgmma_wait`].
///
/// # Interpreter
///
/// Reads the operands when issued; `acc += a @ b` lands at the [`wgmma_wait`] that covers it
/// (overwriting an operand, or touching the accumulator, before that is a race it reports):
/// products exact, the
/// products of each instruction's K block summed exactly and added to the accumulator with one
/// rounding (to `f32`, then to `f16` for an `f16` accumulator; integer sums wrap to `i32`); a
/// `tf32` operand's low 13 mantissa bits are ignored, as on the GPU.
///
/// # Examples
///
/// The [crate documentation](crate)'s first example is a complete GEMM. A with a scale applied in
/// registers:
///
/// ```rust
/// use tessel::prelude::*;
///
/// /// C = (2 A) @ B, A scaled on its way into the tensor cores.
/// #[kernel(grid = (M / 64, N / 64))]
/// fn scaled(a: Gmem<bf16, M, K>, bt: Gmem<bf16, N, K>, c: GmemMut<f32, M, N>) {
///     let (i, j) = (program_id(0), program_id(1));
///     run_scoped(|acc: Acc<f32, 64, 64>, b_s: Smem<bf16, 64, 64, Swizzle128>, bar: Barrier| {
///         for k in 0..K / 64 {
///             copy_gmem_to_smem(bt.tile([j, k]), b_s, bar);
///             barrier_wait(bar);
///             let a_r = a.tile([i, k], [64, 64]).load(Layout::Wgmma).cast::<f32>() * 2.0;
///             wgmma(acc, a_r.cast::<bf16>(), b_s.t()); // B stored N x K: K-major
///             wgmma_wait(0);
///         }
///         c.tile([i, j]).store(acc.load());
///     });
/// }
///
/// fn main() -> tessel::Result<()> {
///     let a = HostTensor::from_fn([64, 64], |ix| bf16::from_f32((ix[0] + ix[1]) as f32))?;
///     let bt = HostTensor::from_fn([64, 64], |ix| bf16::from_f32((ix[0] == ix[1]) as u8 as f32))?;
///     let mut c = HostTensor::zeros([64, 64])?;
///     scaled::interpret(&a, &bt, &mut c)?; // B is the identity: C = 2 A
///     assert_eq!(c.get(&[3, 4]), Some(14.0));
///     Ok(())
/// }
/// ```
///
/// Two tiles per program in one accumulator, each tile's first K step replacing what the last
/// tile left (`accumulate = k > 0`) instead of zeroing it:
///
/// ```rust
/// use tessel::prelude::*;
///
/// #[kernel(grid = (M / 64, N / 128))]
/// fn two_tiles(a: Gmem<bf16, M, K>, b: Gmem<bf16, K, N>, c: GmemMut<f32, M, N>) {
///     let (i, j) = (program_id(0), program_id(1));
///     run_scoped(|acc: Acc<f32, 64, 64>, a_s: Smem<bf16, 64, 64, Swizzle128>, b_s: Smem<bf16, 64, 64, Swizzle128>, bar: Barrier<2>| {
///         for t in 0..2 {
///             for k in 0..K / 64 {
///                 copy_gmem_to_smem(a.tile([i, k]), a_s, bar);
///                 copy_gmem_to_smem(b.tile([k, 2 * j + t]), b_s, bar);
///                 barrier_wait(bar);
///                 wgmma(acc, a_s, b_s, accumulate = k > 0);
///                 wgmma_wait(0);
///             }
///             c.tile([i, 2 * j + t]).store(acc.load());
///         }
///     });
/// }
///
/// fn main() -> tessel::Result<()> {
///     let a = HostTensor::from_fn([64, 128], |_| bf16::ONE)?;
///     let b = HostTensor::from_fn([128, 128], |ix| bf16::from_f32((ix[1] / 64) as f32))?;
///     let mut c = HostTensor::zeros([64, 128])?;
///     two_tiles::interpret(&a, &b, &mut c)?;
///     assert_eq!((c.get(&[0, 0]), c.get(&[0, 127])), (Some(0.0), Some(128.0)));
///     Ok(())
/// }
/// ```
pub fn wgmma<D, S, A, B>(acc: Acc<D, S>, a: A, b: B)
where
    D: Accumulator,
    A: WgmmaA<D>,
    B: WgmmaB<D>,
{
    match acc.never {}
}

/// Waits until at most `n` of the warpgroup's `wgmma` groups are in flight: `wgmma_wait(0)` before
/// reading the accumulator or overwriting an operand.
///
/// `wgmma_wait(1)` keeps the last group running while the code after it overwrites the operands
/// of the ones before (a pipeline's `delay_release = true`).
///
/// # Rules
///
/// `n` is an integer literal.
///
/// # PTX
///
/// `wgmma.wait_group.sync.aligned n`.
///
/// # Interpreter
///
/// The products of the `wgmma`s it covers (all but the latest `n`) land in their accumulators.
pub fn wgmma_wait<'k>(n: u32)
where
    Call<'k>: InKernel,
{
    only_in_kernels()
}

/// The warp-level matrix product `acc + a @ b` on register arrays, returning the new
/// accumulator: `acc = mma(acc, lhs, rhs)`.
///
/// # Rules
///
/// - Layouts: the accumulator in [`Layout::MmaAcc`] (`[M, N]`), A in [`Layout::MmaLhs`]
///   (`[M, K]`), B in [`Layout::MmaRhs`] (`[K, N]`): load them so, or `.to_layout(..)`.
/// - Dtypes ([`MmaOperand`]): A and B of one dtype; `bf16`, `f16`, `f8e4m3`, `f8e5m2` into an
///   `f32` accumulator, `i8` and `i4` into `i32`.
/// - Shapes: M is 16, 32 or 64 (16 rows per warp along M, the warpgroup's other warps along N);
///   each warp's share of N a multiple of 8; K a multiple of the instruction's K (16 for 16-bit,
///   32 for 8-bit, 64 for `i4` operands).
///
/// # PTX
///
/// `mma.sync.aligned.m16n8k16.row.col` (`m16n8k32` for 8-bit operands, `m16n8k64` for `i4`) per
/// instruction tile of each warp.
///
/// # Interpreter
///
/// `acc + a @ b`, rounding once per instruction's K block as for [`wgmma`].
///
/// # Example
///
/// ```rust
/// use tessel::prelude::*;
///
/// /// C = A @ B with warp-level mma, the accumulator carried through the K loop.
/// #[kernel(grid = (M / 64, N / 32))]
/// fn mma_gemm(a: Gmem<bf16, M, K>, b: Gmem<bf16, K, N>, c: GmemMut<f32, M, N>) {
///     let (i, j) = (program_id(0), program_id(1));
///     let mut acc = splat::<f32>(0.0, [64, 32]).to_layout(Layout::MmaAcc);
///     for k in 0..K / 16 {
///         let lhs = a.tile([i, k], [64, 16]).load(Layout::MmaLhs);
///         let rhs = b.tile([k, j], [16, 32]).load(Layout::MmaRhs);
///         acc = mma(acc, lhs, rhs);
///     }
///     c.tile([i, j], [64, 32]).store(acc);
/// }
///
/// fn main() -> tessel::Result<()> {
///     let a = HostTensor::from_fn([64, 32], |ix| bf16::from_f32((ix[0] % 4) as f32))?;
///     let b = HostTensor::from_fn([32, 32], |ix| bf16::from_f32((ix[0] % 2) as f32))?;
///     let mut c = HostTensor::zeros([64, 32])?;
///     mma_gemm::interpret(&a, &b, &mut c)?;
///     assert_eq!(c.get(&[3, 5]), Some(3.0 * 16.0));
///     Ok(())
/// }
/// ```
pub fn mma<D, E, SC, SA, SB>(
    acc: Regs<D, SC, Layout::MmaAcc>,
    a: Regs<E, SA, Layout::MmaLhs>,
    b: Regs<E, SB, Layout::MmaRhs>,
) -> Regs<D, SC, Layout::MmaAcc>
where
    D: DType,
    E: MmaOperand<D>,
{
    match acc.never {}
}
