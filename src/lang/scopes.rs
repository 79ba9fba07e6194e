//! Scopes that allocate: `run_scoped` (accumulators, shared memory, barriers, pipelines) and
//! `run_state` (an accumulator initialised from registers).

use super::dtype::{Accumulator, DType};
use super::matmul::Acc;
use super::memory::Smem;
use super::pipeline::Pipeline;
use super::sealed::Sealed;
use super::sync::Barrier;
use super::{only_in_kernels, Call, InKernel};

/// What a parameter of [`run_scoped`]'s closure may be: an [`Acc`], an [`Smem`], a [`Barrier`] or
/// a [`Pipeline`] (register arrays and scalars are made by expressions, not allocated).
pub trait Allocation: Sealed {}

impl<T: Accumulator, S> Allocation for Acc<T, S> {}
impl<T: DType, S, X> Allocation for Smem<T, S, X> {}
impl<const ARRIVALS: u32, const COUNT: u32> Allocation for Barrier<ARRIVALS, COUNT> {}
impl<const STAGES: u32, const COPIES: u32, const RELEASES: u32> Allocation for Pipeline<STAGES, COPIES, RELEASES> {}

/// The closure of [`run_scoped`]: `|a: A, b: B, ..| -> R`, each parameter an [`Allocation`] with its
/// type written out; `Args` is the tuple of their types.
///
/// Implemented here for closures of one to twelve allocations; the kernel language takes any
/// number.
pub trait Scope<Args, R> {}

macro_rules! scopes {
    ($($a:ident)*) => {
        impl<F, R, $($a: Allocation),*> Scope<($($a,)*), R> for F where F: FnOnce($($a),*) -> R {}
    };
}
scopes!(A);
scopes!(A B);
scopes!(A B C);
scopes!(A B C D);
scopes!(A B C D E);
scopes!(A B C D E G);
scopes!(A B C D E G H);
scopes!(A B C D E G H I);
scopes!(A B C D E G H I J);
scopes!(A B C D E G H I J K);
scopes!(A B C D E G H I J K L);
scopes!(A B C D E G H I J K L M);

/// Runs `body` with the allocations its closure's parameters declare, freed when it returns:
/// `run_scoped(|acc: Acc<f32, 64, 128>, a_s: Smem<bf16, 64, 64, Swizzle128>, bar: Barrier| ..)`.
///
/// # Forms
///
/// - `run_scoped(|x: T, ..| body)`: allocations per warpgroup. Accumulators are allocated so
///   (each warpgroup its own), and in a kernel of one warpgroup, everything.
/// - `run_scoped(collective_axes = [wg], |x: T, ..| body)`: allocations per program, shared by all
///   its warpgroups: the shared memory and barriers of a kernel of several warpgroups. `wg` is
///   the name the kernel attribute gives, `warpgroup_axis = wg`.
/// - The value of `body` (a scalar, a register array or a tuple of them) is the call's value.
/// - `#[when(condition)] x: T`: the allocation only where `condition` holds, a condition known
///   when the kernel is read (of literals, consts and generic parameters: `#[when(SPLIT > 1)]`);
///   elsewhere there is no `x`, so its uses go under `if SPLIT > 1 { .. }`, whose other instances
///   leave the branch out unread (see [the `if` row](crate::lang#statements-operators-and-scalars)).
///   The allocations that remain are laid out as if the others were never written: an instance
///   of a generic kernel allocates exactly what the kernel written out for it would. A condition
///   not known then is a compile error (`T0121`), and so is another attribute (`T0123`).
///
/// # Rules
///
/// - Each parameter has its type written out: [`Acc`], [`Smem`], [`Barrier`] or [`Pipeline`].
/// - `collective_axes` names the warpgroup axis, once; a collective scope allocates no
///   accumulator (allocate it in a `run_scoped` of its own, inside or around).
/// - In a kernel of several warpgroups, shared memory and barriers are allocated collectively.
/// - Memory is the scope's: nothing that names it (a buffer, a barrier, an accumulator) is its
///   value, and the next scope at the same depth reuses its shared memory, as in Mosaic GPU. Inside
///   `run_scoped(|acc: Acc<..>| ..)`, a collective scope for a pipeline's stages followed by one
///   for an epilogue's buffers keeps the accumulator across both while the epilogue's buffers take
///   the stages' memory (every warpgroup meets at the start of a scope that allocates shared
///   memory, so the second starts after the pipeline's last reads).
/// - The kernel's shared memory at the deepest point, with alignment and the scratch of register
///   relayouts, is at most 232448 bytes.
///
/// # PTX
///
/// Accumulators: zeroed registers. Buffers: offsets in `.extern .shared .align 1024 .b8 smem[]`.
/// Barriers: `mbarrier.init.shared::cta.b64` by one thread, `fence.mbarrier_init.release.cluster`,
/// then `bar.sync 0` (`barrier.cluster.arrive`/`wait` in a cluster, so that every program's
/// barriers exist before any program arrives on them), and `mbarrier.inval` at the end.
///
/// # Interpreter
///
/// Zeroed accumulators, initialised barriers, and buffers at their offsets in the program's
/// shared memory (which reads as NaN until written); all warpgroups meet at the start and the
/// end of a collective scope (in a cluster, all programs' warpgroups, for a scope with barriers).
///
/// # Example
///
/// ```rust
/// use tessel::prelude::*;
///
/// /// Two warpgroups share a buffer: the first fills it, the second reads it after a barrier.
/// #[kernel(grid = (M / 64), warpgroups = 2, warpgroup_axis = wg)]
/// fn handoff(x: Gmem<f32, M, 64>, y: GmemMut<f32, M, 64>) {
///     let i = program_id(0);
///     run_scoped(collective_axes = [wg], |x_s: Smem<f32, 64, 64>, ready: Barrier| {
///         if warpgroup_id() == 0 {
///             x_s.store(x.tile([i, 0], [64, 64]).load(Layout::Strided) * 3.0);
///             barrier_arrive(ready);
///         } else {
///             barrier_wait(ready);
///             y.tile([i, 0], [64, 64]).store(x_s.load(Layout::Strided));
///         }
///     });
/// }
///
/// fn main() -> tessel::Result<()> {
///     let x = HostTensor::from_fn([128, 64], |ix| ix[0] as f32)?;
///     let mut y = HostTensor::zeros([128, 64])?;
///     handoff::interpret(&x, &mut y)?;
///     assert_eq!(y.get(&[100, 1]), Some(300.0));
///     Ok(())
/// }
/// ```
pub fn run_scoped<'k, Args, R>(body: impl Scope<Args, R>) -> R
where
    Call<'k>: InKernel,
{
    only_in_kernels()
}

/// Runs `body` with an accumulator initialised from a register array:
/// `run_state(Acc::from_regs(x), |acc| ..)`.
///
/// The accumulator is the warpgroup's, as one that [`run_scoped`] allocates, but starts from `x`
/// instead of zero (C = A @ B + C, or a running attention output). The closure's one parameter
/// needs no type.
///
/// # Rules
///
/// As [`Acc::from_regs`]: `x` is a [`Layout::Wgmma`](super::Layout::Wgmma) array of an
/// accumulator's shape, not of an unsigned dtype. The body's value is the call's (not the
/// accumulator: return `acc.load()`).
///
/// # PTX
///
/// Register moves into the accumulator fragments.
///
/// # Interpreter
///
/// An accumulator holding `x`.
///
/// See [`Acc`] for an example.
pub fn run_state<T, S, R>(init: Acc<T, S>, body: impl FnOnce(Acc<T, S>) -> R) -> R {
    match init.never {}
}
