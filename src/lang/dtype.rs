//! The element types (dtypes) and the traits that say which of them each operation takes.

use super::sealed::Sealed;

use crate::{bf16, f16, f8e4m3, f8e5m2};

/// TensorFloat-32: an `f32` whose low 13 mantissa bits the tensor cores ignore (8 exponent bits,
/// 10 mantissa bits).
///
/// `tf32` has no host type: a `tf32` buffer holds `f32` data, so a kernel takes `Gmem<f32, ..>`
/// and copies it into `Smem<tf32, ..>` (TMA copies `f32` into `tf32` buffers and back), or
/// converts registers with `.cast::<tf32>()`. It is an operand dtype of [`wgmma`](super::wgmma)
/// (K a multiple of 8, accumulated in `f32`, A and B both K-major in shared memory).
///
/// PTX: `cvt.rna.tf32.f32` (round to nearest, ties away from zero) for `.cast::<tf32>()`; the
/// interpreter rounds the same way, and its `wgmma` reads a `tf32` operand's value with the low 13
/// bits cleared, as the hardware does.
#[allow(non_camel_case_types)]
#[derive(Clone, Copy, Debug)]
pub enum tf32 {}

/// A 4-bit signed integer (-8 to 7): the operand dtype of the warp-level [`mma`](super::mma)
/// `m16n8k64`, accumulated in `i32`.
///
/// `i4` has no host type, so no global array holds it yet: it exists in registers, where
/// `.cast::<i4>()` of an integer array wraps each value to 4 bits. An `i4` takes a byte in
/// registers; `mma` packs its operands.
#[allow(non_camel_case_types)]
#[derive(Clone, Copy, Debug)]
pub enum i4 {}

/// An element type of the language: what `T` may be in `Gmem<T, ..>`, `Smem<T, ..>`, `Regs<T, ..>`,
/// `splat::<T>`, `.cast::<T>()` and `x as T`.
///
/// | dtype | bits | host type | class |
/// |---|---|---|---|
/// | [`bf16`] | 16 | `half::bf16` | float (8 exponent, 7 mantissa bits) |
/// | [`f16`](struct@f16) | 16 | `half::f16` | float (5 exponent, 10 mantissa bits) |
/// | `f32` | 32 | `f32` | float |
/// | [`tf32`] | 32 | `f32` (no host type of its own) | float, stored as `f32` |
/// | [`f8e4m3`] | 8 | [`F8E4M3`](crate::F8E4M3) | float (4 exponent, 3 mantissa bits, no infinities) |
/// | [`f8e5m2`] | 8 | [`F8E5M2`](crate::F8E5M2) | float (5 exponent, 2 mantissa bits) |
/// | [`i4`] | 4 | none | signed integer |
/// | `i8`, `i16`, `i32`, `i64` | 8 to 64 | the same | signed integer |
/// | `u8`, `u16`, `u32`, `u64` | 8 to 64 | the same | unsigned integer |
/// | `bool` | 8 | none in global memory | predicate |
///
/// # Rules
///
/// - A literal is `i32` or `f32` unless suffixed (`1u32`, `0.5f32`); an unsuffixed literal takes
///   the type of the other operand (`x * 2` of an `f16` array, `k + 1` of a `u32`).
/// - Binary operators take two values of one dtype: convert with `.cast::<T>()` (register arrays
///   and scalars) or `x as T` (scalars).
/// - A scalar kernel parameter is `f32`, `i32`, `u32`, `i64` or `u64` (passed by value as a
///   `.param` of its type); take another dtype as one of these and convert it in the kernel.
/// - Integers narrower than 32 bits live sign- or zero-extended in 32-bit registers; arithmetic
///   wraps at the dtype's width, as Rust's `wrapping_*` operations do.
/// - Global arrays hold every dtype with a host type: `bf16 f16 f32 f8e4m3 f8e5m2 i8 u8 i16 u16
///   i32 u32 i64 u64` (`tf32` data is passed as `f32`; `i4` and `bool` arrays cannot be passed).
/// - A generic kernel's type parameter stands for a dtype with a host type of its own (not `tf32`,
///   `i4` or `bool`).
///
/// The implementors below are the sixteen dtypes. `bf16`, `f16`, `f8e4m3` and `f8e5m2` here are
/// the prelude's host types themselves, so host code may glob both modules:
///
/// ```rust
/// use tessel::lang::*;
/// use tessel::prelude::*;
///
/// let x = f8e4m3::from_f32(0.5); // the same `f8e4m3`, by either path
/// let y: tessel::lang::bf16 = bf16::from_f32(1.5);
/// assert_eq!((x.to_f32(), y.to_f32()), (0.5, 1.5));
/// ```
pub trait DType: Sealed {}

/// A floating-point dtype: `bf16 f16 f32 tf32 f8e4m3 f8e5m2`.
///
/// The math functions ([`exp2`](super::exp2), [`sqrt`](super::sqrt), ..) and [`fma`](super::fma)
/// take the 16- and 32-bit ones (`f32`, `f16`, `bf16`; f16 and bf16 computed in f32 and rounded
/// once); cast the others to `f32` first.
pub trait Float: DType {}

/// An integer dtype, signed (`i4 i8 i16 i32 i64`) or unsigned (`u8 u16 u32 u64`): what `%`,
/// shifts, bitwise operators, [`cdiv`](super::cdiv) and [`iota`](super::iota) take.
pub trait Int: DType {}

/// A dtype a WGMMA accumulator holds: `f32`, `f16` or `i32` (PTX `wgmma.mma_async`'s `.dtype`).
///
/// `u32` is not one: PTX integer wgmma accumulates in signed 32-bit (`.s32`).
pub trait Accumulator: DType {}

/// An operand dtype of [`wgmma`](super::wgmma) accumulating into `D`, with the K that one
/// instruction consumes (32 bytes of each operand row):
///
/// | operand | accumulators | K per instruction | A in registers | MN-major (transposed) operands |
/// |---|---|---|---|---|
/// | `f16` | `f32`, `f16` | 16 | yes | yes |
/// | `bf16` | `f32` | 16 | yes | yes |
/// | `tf32` | `f32` | 8 | no | no |
/// | `f8e4m3`, `f8e5m2` | `f32`, `f16` | 32 | yes | no |
/// | `i8` | `i32` | 32 | yes | no |
///
/// A and B have the same dtype, except that the two fp8 dtypes mix (A `f8e4m3` with B `f8e5m2`
/// and the reverse). PTX ISA, "wgmma.mma_async shapes and types"; PTX also has `u8` operands,
/// which tessel does not emit.
pub trait WgmmaOperand<D: Accumulator>: DType {}

/// An operand dtype of the warp-level [`mma`](super::mma) accumulating into `D`, with its
/// instruction shape: `bf16`, `f16` (`m16n8k16`), `f8e4m3`, `f8e5m2` (`m16n8k32`) into `f32`;
/// `i8` (`m16n8k32`) and `i4` (`m16n8k64`) into `i32`.
pub trait MmaOperand<D: DType>: DType {}

macro_rules! dtypes {
    ($($ty:ty),* $(,)?) => { $( impl Sealed for $ty {} impl DType for $ty {} )* };
}
macro_rules! impls {
    ($tr:ident: $($ty:ty),* $(,)?) => { $( impl $tr for $ty {} )* };
    ($tr:ident<$d:ty>: $($ty:ty),* $(,)?) => { $( impl $tr<$d> for $ty {} )* };
}

dtypes!(bf16, f16, f32, tf32, f8e4m3, f8e5m2, i4, i8, u8, i16, u16, i32, u32, i64, u64, bool);
impls!(Float: bf16, f16, f32, tf32, f8e4m3, f8e5m2);
impls!(Int: i4, i8, u8, i16, u16, i32, u32, i64, u64);
impls!(Accumulator: f32, f16, i32);
impls!(WgmmaOperand<f32>: f16, bf16, tf32, f8e4m3, f8e5m2);
impls!(WgmmaOperand<f16>: f16, f8e4m3, f8e5m2);
impls!(WgmmaOperand<i32>: i8);
impls!(MmaOperand<f32>: bf16, f16, f8e4m3, f8e5m2);
impls!(MmaOperand<i32>: i8, i4);
