//! The kernel language: every operation, type and layout of a `#[kernel]` body, as items that
//! search, hover and links can find.
//!
//! A kernel is written in a small tile-level language modelled on JAX Pallas's Mosaic GPU
//! backend. [`#[kernel]`](crate::kernel) reads the function's body, checks it and compiles it to
//! PTX; rustc never compiles the body as Rust. The items of this module *declare* the language
//! for the reader: each one's documentation gives its forms, the rules the build checks (each a
//! compile error at the offending token), the PTX it becomes and what the CPU interpreter does.
//!
//! ```rust
//! use tessel::prelude::*;
//!
//! /// y = 2 x + 1 on 64 x 64 tiles, one per program.
//! #[kernel(grid = (M / 64, N / 64))]
//! fn affine(x: Gmem<f32, M, N>, y: GmemMut<f32, M, N>) {
//!     let (i, j) = (program_id(0), program_id(1));
//!     let v = x.tile([i, j], [64, 64]).load(Layout::Wgmma);
//!     y.tile([i, j], [64, 64]).store(v * 2.0 + 1.0);
//! }
//!
//! fn main() -> tessel::Result<()> {
//!     let x = HostTensor::from_fn([128, 64], |ix| ix[0] as f32)?;
//!     let mut y = HostTensor::zeros([128, 64])?;
//!     affine::interpret(&x, &mut y)?; // `affine::launch` on a GPU
//!     assert_eq!(y.get(&[100, 3]), Some(201.0));
//!     Ok(())
//! }
//! ```
//!
//! # Index
//!
//! | what | items |
//! |---|---|
//! | programs and warpgroups | [`program_id`], [`num_programs`], [`warpgroup_id`], [`cluster_rank`], [`set_max_registers`], [`globaltimer`] |
//! | scopes and allocations | [`run_scoped`], [`run_state`], [`Acc`], [`Smem`], [`Barrier`], [`Pipeline`] |
//! | global memory | [`Gmem`], [`GmemMut`], [`Gmem::tile`], [`Tile`] |
//! | views | [`Smem::at`], [`Smem::slice`], [`Smem::t`], [`Smem::transpose`], [`Acc::slice`], [`Regs::slice`], [`Barrier::at`] |
//! | loads and stores | [`Acc::load`], [`Acc::store`], [`Smem::load`], [`Smem::store`], [`Tile::load`], [`Tile::store`], [`Tile::atomic_add`] |
//! | copies (TMA and bulk) | [`copy_gmem_to_smem`], [`copy_smem_to_gmem`] (also reducing: [`Reduce`]), [`wait_smem_to_gmem`], [`copy_smem_to_peer`], [`commit_smem`] |
//! | synchronization | [`barrier_arrive`], [`barrier_wait`], [`pipeline_produce`], [`pipeline_consume`], [`semaphore_signal`], [`semaphore_wait`] |
//! | several devices ([`devices`]: `devices = W`, `#[peers]`) | [`device_id`], [`device_count`], [`remote`] |
//! | matrix products | [`wgmma`], [`wgmma_wait`], [`mma`] |
//! | register arrays | [`Regs`], [`splat`], [`iota`], operators (`+ - * / % << >> & \| ^`, comparisons), [`Regs::cast`], [`Regs::bitcast`], [`Regs::sum`], [`Regs::max`], [`Regs::min`], [`Regs::broadcast`], [`Regs::to_layout`], [`Regs::layout_cast`] |
//! | math | [`exp2`], [`exp`], [`log2`], [`log`], [`sqrt`], [`rsqrt`], [`recip`], [`tanh`], [`abs`], [`floor`], [`ceil`], [`round`], [`trunc`], [`max`], [`min`], [`fma`], [`cdiv`] |
//! | dtypes | [`DType`] (all sixteen), [`tf32`], [`i4`], [`Float`], [`Int`], [`Accumulator`], [`WgmmaOperand`], [`MmaOperand`] |
//! | layouts | [`Layout`]: [`Wgmma`](Layout::Wgmma), [`WgmmaRow`](Layout::WgmmaRow), [`WgmmaCol`](Layout::WgmmaCol), [`Strided`](Layout::Strided), [`Splat`](Layout::Splat), [`MmaLhs`](Layout::MmaLhs), [`MmaRhs`](Layout::MmaRhs), [`MmaAcc`](Layout::MmaAcc) |
//! | shared-memory transforms | [`Swizzle128`], [`Swizzle64`], [`Swizzle32`], [`Swizzle`], [`NoSwizzle`], [`Tiled`], [`Transposed`] |
//! | traits that state the typing | [`Numeric`], [`MathFloat`], [`Signed`], [`WgmmaA`], [`WgmmaB`], [`Allocation`], [`Scope`], [`SemaphoreIndex`], [`RegisterLayout`], [`PeersArray`], [`InKernel`] |
//!
//! The kernel attribute (`grid`, `warpgroups`, `cluster`, `consts`, `ragged`, ..), generic
//! kernels and kernel functions are described in the [crate documentation](crate#kernels-and-programs).
//!
//! # How to read the declarations
//!
//! - **No host code can call them.** The language's values ([`Acc`], [`Smem`], [`Regs`], [`Gmem`],
//!   [`Barrier`], ..) are uninhabited types: host code can name them but never hold one, so a
//!   method or an operation that takes one cannot be called. An operation that takes only
//!   scalars, shapes or closures ([`program_id`], [`splat`], [`run_scoped`], [`exp2`], ..) carries
//!   the bound `where Call<'k>: InKernel`, which nothing satisfies: calling it from host code is a
//!   compile error, "the operations of `tessel::lang` run only inside a `#[kernel]` function".
//!   The bodies are therefore statically unreachable (a match on an empty enum), not a panic
//!   waiting for a caller; and the items are ordinary Rust, type-checked in every build, so they
//!   cannot drift into declaring what does not compile (`#[cfg(doc)]` items would not be checked,
//!   and IDEs, which build without `cfg(doc)`, would not see them).
//! - **Dtypes and layouts are types.** A dtype parameter is bounded by a trait whose implementors
//!   are the dtypes the operation takes ([`Accumulator`], [`WgmmaOperand`], ..). A layout is a
//!   type in the module [`Layout`], so `x_s.load(Layout::Wgmma)` is typed
//!   `Regs<T, S, Layout::Wgmma>` and [`mma`] asks for `Layout::MmaLhs` operands by type.
//! - **Shapes are `S`.** Rust has no variadic generics, so the dimensions written in a type
//!   (`Smem<bf16, STAGES, 64, 64, Swizzle128>`) are one type parameter, `S`, in its declaration
//!   (`Smem<T, S, X>`); a signature that repeats `S` says that two values have the same shape. The
//!   types of fixed arity ([`Barrier`], [`Pipeline`]) take const parameters as written.
//! - **Forms.** Where the kernel's syntax has no Rust equivalent (several dimensions in one type,
//!   an optional argument such as the layout of `.load()`, a named one such as
//!   `multicast = true`, a window `[.., 0..32]`), the declaration shows the plain form and the
//!   item's *Forms* section lists what a kernel may write.
//!
//! # What runs where
//!
//! A program (a CUDA block, one per grid point) is `128 * warpgroups` threads. Scalar code,
//! control flow, register arrays, accumulators, `wgmma`, `mma`, loads, stores and copies run *per
//! warpgroup*: each warpgroup executes them on its own data (TMA copies and barrier arrivals are
//! issued by one thread of the warpgroup). Shared buffers and barriers exist *per program* when
//! allocated with `collective_axes` (see [`run_scoped`]) and are then shared by all warpgroups; in
//! a kernel of one warpgroup the distinction disappears.
//!
//! # Synchronization, checked when the kernel compiles
//!
//! Copies and matrix products run asynchronously, and the build checks that a kernel waits for
//! them, over its branches and loops (each warpgroup's code on its own, with `warpgroup_id()`
//! known). Each rule is a compile error at the offending token, whose `help:` line gives the fix:
//!
//! | code | rule |
//! |---|---|
//! | T0114 | a shared buffer is read (wgmma operand, register load, TMA store or peer copy source) only after a [`barrier_wait`] on the barrier of the TMA load into it |
//! | T0115 | each phase of a [`Barrier`] gets the arrivals it is declared with: fewer, and the wait never returns; more, and it can return before the last of them |
//! | T0116 | a shared buffer is not overwritten (TMA load, register store) while a [`wgmma`] that reads it may be in flight: a [`wgmma_wait`] covers it first |
//! | T0117 | an accumulator is not read or stored while a [`wgmma`] that writes it may be in flight |
//! | T0118 | a TMA store, peer copy or wgmma of register stores comes after a [`commit_smem`] |
//! | T0119 | a shared buffer is not overwritten while a TMA store that reads it may be in flight: a [`wait_smem_to_gmem`] covers it first |
//! | T0120 | a shared buffer written by one warpgroup and read by another has a barrier between them |
//! | T0149 | a TMA store into another device's memory is complete (`wait_smem_to_gmem(n, complete = true)`) before the next [`semaphore_signal`] on a `#[peers]` counter, which publishes it (see [`devices`]) |
//!
//! Where the answer depends on run-time data (an `.at(s)` at a run-time index, a branch on
//! run-time data) the check says nothing rather than guess; a loop is taken to turn (what is wrong
//! from its second turn on is reported). So a [`Pipeline`]'s ring, whose stage is counted at run
//! time, is correct by construction rather than checked, and what the body does with the stage's
//! buffers is the kernel's to get right; the accumulators and the buffers outside the ring are
//! checked as anywhere else.
//!
//! # Statements, operators and scalars
//!
//! | construct | PTX | interpreter |
//! |---|---|---|
//! | `let x = e;`, `let mut x: T = e;`, `let (i, j) = (e0, e1);`, `x = e;`, `x += e;` | registers; a tuple assignment copies every value before it assigns any, so `(j, k) = (k, j)` swaps | Rust's assignment |
//! | `const BK: usize = 64;` (also `consts(BK = 64)` in the attribute) | nothing: computed in `i64` when the kernel compiles (an overflow is a compile error), used as an `i32` | the same value |
//! | `for k in a..b { .. }` over `i32` | a counter, `setp` and `bra` | a Rust loop |
//! | `#[unroll] for q in 0..4 { .. }` | one copy of the body per value, in which `q` is an integer literal, so that `acc.slice([.., 64 * q..64 * q + 64])` has the constant bounds a window needs; the bounds are integer expressions of literals (a `macro_rules!` may pass them), consts and enclosing unrolled counters (`0..BN / 64`); at most 64 copies; an error in the body is reported once | the copies |
//! | `if c { .. } else { .. }`; `if c { a } else { b }` as a value (a scalar, a register array or a tuple of them, one type in both branches; an unsuffixed literal takes the other branch's type) | `setp` and `bra`, the value left by the branch taken in registers of its own; a condition known when the kernel compiles (`if CAUSAL == 1 && ..` with a const) emits only the taken side. A condition known when the kernel is *read* (comparisons, `&&`, `\|\|` and `!` of literals, consts, generic parameters and unrolled counters: `if SPLIT > 1`, `if CLUSTER == 2`) keeps only its branch from the start: the other is parsed by rustc but never checked, so it may use what this instance of a generic kernel lacks (an allocation under [`#[when(..)]`](run_scoped#forms), `cluster_rank()` in a kernel without clusters); as a value, it is its branch's value | Rust's `if` (the kept branch) |
//! | `+ - * / % << >> & \| ^`, `== != < <= > >=`, `&&`, `\|\|`, `-x`, `!x` on scalars and register arrays | `add`, `sub`, `mul`, `div`, `rem`, `shl`, `shr`, `and`, `or`, `xor`, `setp`, `selp`, `neg`, `not` per element, once per thread on scalars; a result that can leave a narrow integer dtype's range is wrapped back with a `bfe` of its low bits | the same operation in the dtype, with PTX's rounding; integers wrap |
//! | `x as T` on scalars | `cvt` as [`Regs::cast`] | as [`Regs::cast`] |
//! | `f(a, b)`, a [kernel function](crate#kernel-functions) of a `#[kernels]` module or of a library it uses | nothing of itself: the arguments are bound (a literal gets a register) and the body is emitted in place | the arguments evaluated, then the body |
//!
//! A flag of an operation (`multicast = ..` of [`copy_gmem_to_smem`], `cluster = ..` of
//! [`barrier_arrive`] and of [`pipeline_consume`], `delay_release = ..`) is `true`, `false` (no
//! flag) or a condition known when the kernel is read, as an `if`'s above: `multicast = CLUSTER ==
//! 2` in a generic kernel over `CLUSTER`. Any other value is a compile error (`T0121`).
//!
//! Window bounds (`.slice([.., a..b])`) may also name immutable `let`s of such values
//! (`let other = BN - BN * half;` then `acc.slice([.., other..other + BN])`).
//!
//! Operators on register arrays need equal shapes, dtypes and layouts (a `Splat` array or a
//! scalar combines with any layout), and give the operands' layout; comparisons give `bool`
//! arrays. `%`, shifts and bitwise operators take integers (`& | ^` also bools), `&&` and `||`
//! bools. A value computed and dropped (`x + 1;`) is a compile error. The methods
//! `.exp2()`, `.cast::<T>()`, `.bitcast::<T>()` and the other math methods of [`Regs`] apply to
//! scalars too.

// The parameters of these declarations document the operations; their bodies never run.
#![allow(unused_variables)]

use std::marker::PhantomData;

mod copies;
pub mod devices;
mod dtype;
mod layouts;
mod math;
mod matmul;
mod memory;
mod pipeline;
mod program;
mod registers;
mod scopes;
mod sync;

pub use copies::{commit_smem, copy_gmem_to_smem, copy_smem_to_gmem, copy_smem_to_peer, wait_smem_to_gmem, Reduce};
pub use devices::{device_count, device_id, remote, PeersArray};
pub use dtype::{i4, tf32, Accumulator, DType, Float, Int, MmaOperand, WgmmaOperand};
// The prelude's host types are the dtypes' names here too: the same items, so that globbing both
// `tessel::prelude` and `tessel::lang` is no ambiguity.
#[doc(no_inline)]
pub use crate::{bf16, f16, f8e4m3, f8e5m2};
pub use layouts::{Layout, RegisterLayout};
pub use math::{
    abs, cdiv, ceil, exp, exp2, floor, fma, log, log2, max, min, recip, round, rsqrt, sqrt, tanh, trunc, MathFloat,
    Numeric, Signed,
};
pub use matmul::{mma, wgmma, wgmma_wait, Acc, WgmmaA, WgmmaB};
pub use memory::{Gmem, GmemMut, NoSwizzle, Smem, Swizzle, Swizzle128, Swizzle32, Swizzle64, Tile, Tiled, Transposed};
pub use pipeline::{pipeline_consume, pipeline_produce, Pipeline};
pub use program::{cluster_rank, globaltimer, num_programs, program_id, set_max_registers, warpgroup_id};
pub use registers::{iota, splat, Regs};
pub use scopes::{run_scoped, run_state, Allocation, Scope};
pub use sync::{barrier_arrive, barrier_wait, semaphore_signal, semaphore_wait, Barrier, SemaphoreIndex};

/// A call of an operation, as the bound `where Call<'k>: InKernel` names it: see [`InKernel`].
pub struct Call<'k>(sealed::Never, PhantomData<&'k ()>);

/// What no host code can prove: that a call stands in a `#[kernel]` function's body.
///
/// The operations that take no value of the language (only scalars, shapes or closures) carry
/// `where Call<'k>: InKernel`. Nothing implements `InKernel` (it is sealed), so a call from host
/// code fails to compile:
///
/// ```compile_fail,E0277
/// let p = tessel::lang::program_id(0); // error: the operations of `tessel::lang` run only inside a `#[kernel]` function
/// ```
///
/// Inside a kernel the bound means nothing: `#[kernel]` reads the call, and rustc never sees it.
#[diagnostic::on_unimplemented(
    message = "the operations of `tessel::lang` run only inside a `#[kernel]` function",
    label = "called from host code",
    note = "`#[kernel]` reads a kernel's body and compiles it to PTX; host code launches the kernel instead"
)]
pub trait InKernel: sealed::Body {}

/// The body of an operation that carries `where Call<'k>: InKernel`: it cannot run, since no
/// `Call` implements the trait.
fn only_in_kernels<'k>() -> !
where
    Call<'k>: InKernel,
{
    <Call<'k> as sealed::Body>::unreachable()
}

/// What keeps the language's types uninhabited and its traits closed.
mod sealed {
    /// No value: the field of every type of the language.
    #[derive(Clone, Copy, Debug)]
    pub enum Never {}

    /// The supertrait of [`InKernel`](super::InKernel), which no `Call` implements.
    pub trait Body {
        fn unreachable() -> !;
    }

    /// The supertrait of the closed traits (dtypes, layouts, transforms).
    pub trait Sealed {}
}

/// `Clone` and `Copy` for uninhabited types of the language: handles are used as often as a kernel
/// likes (`acc` in every `wgmma`), and register arrays are values.
macro_rules! copy_type {
    ($name:ident<$($p:ident),* $(; $(const $c:ident: $ct:ty),*)?>) => {
        impl<$($p,)* $($(const $c: $ct),*)?> Clone for $name<$($p,)* $($($c),*)?> {
            fn clone(&self) -> Self {
                *self
            }
        }
        impl<$($p,)* $($(const $c: $ct),*)?> Copy for $name<$($p,)* $($($c),*)?> {}
    };
}
use copy_type;
