//! Elementwise math on scalars and register arrays.

use super::dtype::{i4, tf32, DType, Int};
use super::registers::Regs;
use super::sealed::Sealed;
use super::{only_in_kernels, Call, InKernel};
use crate::{bf16, f16, f8e4m3, f8e5m2};

/// What elementwise functions take: a scalar of a dtype, or a register array ([`Regs`]), whose
/// dtype is [`Numeric::Elem`].
///
/// Two operands of one function have one type: the same dtype, and for arrays the same shape and
/// layout (a `Splat` array or a scalar combines with an array of any layout, and an unsuffixed
/// literal takes the other operand's dtype).
pub trait Numeric: Sealed {
    /// The element dtype.
    type Elem: DType;
}

impl<T: DType> Numeric for T {
    type Elem = T;
}

impl<T: DType, S, L> Numeric for Regs<T, S, L> {
    type Elem = T;
}

/// A dtype the math functions compute in: `f32`, `f16` and `bf16` (16-bit values converted to
/// `f32`, the result rounded back once). Cast other floats to `f32` first.
pub trait MathFloat: DType {}

impl MathFloat for f32 {}
impl MathFloat for f16 {}
impl MathFloat for bf16 {}

/// A dtype with a sign, which `-x` and [`abs`] take: the floats and the signed integers.
pub trait Signed: DType {}

macro_rules! signed {
    ($($t:ty),*) => { $( impl Signed for $t {} )* };
}
signed!(bf16, f16, f32, tf32, f8e4m3, f8e5m2, i4, i8, i16, i32, i64);

macro_rules! math_fn {
    ($(#[$doc:meta])* $f:ident: $bound:ident) => {
        $(#[$doc])*
        pub fn $f<'k, X>(x: X) -> X
        where
            X: Numeric,
            X::Elem: $bound,
            Call<'k>: InKernel,
        {
            only_in_kernels()
        }
    };
}

math_fn! {
    /// 2<sup>x</sup>, elementwise; also `x.exp2()`.
    ///
    /// PTX: `ex2.approx.ftz.f32` (subnormal results flush to zero). Interpreter: `f32::exp2`,
    /// rounded to the dtype; the GPU's `.approx` results differ in the last bits.
    exp2: MathFloat
}

math_fn! {
    /// e<sup>x</sup>, elementwise; also `x.exp()`.
    ///
    /// PTX: `mul.f32` by log2 e, then `ex2.approx.ftz.f32`. Interpreter: `f32::exp`, rounded to
    /// the dtype; the GPU's results differ in the last bits. A softmax that scales by log2 e
    /// itself can call [`exp2`] and save the multiplication.
    ///
    /// # Example
    ///
    /// ```rust
    /// use tessel::prelude::*;
    ///
    /// #[kernel(grid = (1))]
    /// fn exps(x: Gmem<f32, 64, 64>, y: GmemMut<f32, 64, 64>) {
    ///     let v = x.tile([0, 0], [64, 64]).load(Layout::Wgmma);
    ///     y.tile([0, 0]).store(exp(v) + v.exp2() + log(v + 1.0));
    /// }
    ///
    /// fn main() -> tessel::Result<()> {
    ///     let x = HostTensor::from_fn([64, 64], |ix| (ix[0] % 2) as f32)?;
    ///     let mut y = HostTensor::zeros([64, 64])?;
    ///     exps::interpret(&x, &mut y)?;
    ///     assert_eq!(y.get(&[0, 0]), Some(2.0)); // e^0 + 2^0 + ln 1
    ///     Ok(())
    /// }
    /// ```
    exp: MathFloat
}

math_fn! {
    /// log<sub>2</sub> x, elementwise; also `x.log2()`.
    ///
    /// PTX: `lg2.approx.ftz.f32`. Interpreter: `f32::log2`, rounded to the dtype; the GPU's
    /// results differ in the last bits.
    log2: MathFloat
}

math_fn! {
    /// The natural logarithm, elementwise; also `x.log()`.
    ///
    /// PTX: `lg2.approx.ftz.f32`, then `mul.f32` by ln 2. Interpreter: `f32::ln`, rounded to the
    /// dtype; the GPU's results differ in the last bits.
    log: MathFloat
}

math_fn! {
    /// The square root, elementwise; also `x.sqrt()`.
    ///
    /// PTX: `sqrt.rn.f32` (correctly rounded). Interpreter: `f32::sqrt`, rounded to the dtype.
    sqrt: MathFloat
}

math_fn! {
    /// 1 / √x, elementwise; also `x.rsqrt()`.
    ///
    /// PTX: `rsqrt.approx.ftz.f32`. Interpreter: `1 / f32::sqrt(x)`, rounded to the dtype; the
    /// GPU's results differ in the last bits.
    rsqrt: MathFloat
}

math_fn! {
    /// 1 / x, elementwise; also `x.recip()`.
    ///
    /// PTX: `rcp.rn.f32` (correctly rounded). Interpreter: `1 / x` in `f32`, rounded to the dtype.
    recip: MathFloat
}

math_fn! {
    /// The hyperbolic tangent, elementwise; also `x.tanh()`.
    ///
    /// PTX: `tanh.approx.f32`. Interpreter: `f32::tanh`, rounded to the dtype; the GPU's results
    /// differ in the last bits.
    tanh: MathFloat
}

math_fn! {
    /// |x|, elementwise, of floats and signed integers; also `x.abs()`.
    ///
    /// PTX: `abs`. Interpreter: the same (an integer's minimum wraps to itself).
    abs: Signed
}

math_fn! {
    /// The largest integer not above x, elementwise; also `x.floor()`.
    ///
    /// PTX: `cvt.rmi.f32.f32` (f16 and bf16 through f32). Interpreter: the same, exactly.
    floor: MathFloat
}

math_fn! {
    /// The smallest integer not below x, elementwise; also `x.ceil()`.
    ///
    /// PTX: `cvt.rpi.f32.f32` (f16 and bf16 through f32). Interpreter: the same, exactly.
    ceil: MathFloat
}

math_fn! {
    /// x rounded to the nearest integer, ties to even (as `jnp.round` and Rust's
    /// `f32::round_ties_even`, not Rust's `f32::round`), elementwise; also `x.round()`.
    ///
    /// PTX: `cvt.rni.f32.f32` (f16 and bf16 through f32). Interpreter: the same, exactly.
    round: MathFloat
}

math_fn! {
    /// x rounded toward zero to an integer, elementwise; also `x.trunc()`.
    ///
    /// PTX: `cvt.rzi.f32.f32` (f16 and bf16 through f32). Interpreter: the same, exactly.
    trunc: MathFloat
}

/// The larger of `x` and `y`, elementwise (scalars or register arrays of one dtype). Not to be
/// confused with the reduction [`x.max(axis)`](Regs::max).
///
/// A NaN loses to a number. PTX: `max` of the dtype. Interpreter: the same.
///
/// # Example
///
/// ```rust
/// use tessel::prelude::*;
///
/// /// ReLU: max(v + b, 0).
/// #[kernel(grid = (1))]
/// fn relu(x: Gmem<f32, 64, 64>, y: GmemMut<f32, 64, 64>, b: f32) {
///     let v = x.tile([0, 0], [64, 64]).load(Layout::Wgmma);
///     y.tile([0, 0]).store(max(v + b, 0.0));
/// }
///
/// fn main() -> tessel::Result<()> {
///     let x = HostTensor::from_fn([64, 64], |ix| ix[1] as f32 - 32.0)?;
///     let mut y = HostTensor::zeros([64, 64])?;
///     relu::interpret(&x, &mut y, 2.0)?;
///     assert_eq!((y.get(&[0, 10]), y.get(&[0, 40])), (Some(0.0), Some(10.0)));
///     Ok(())
/// }
/// ```
pub fn max<'k, X: Numeric>(x: X, y: X) -> X
where
    Call<'k>: InKernel,
{
    only_in_kernels()
}

/// The smaller of `x` and `y`, elementwise (scalars or register arrays of one dtype). Not to be
/// confused with the reduction [`x.min(axis)`](Regs::min).
///
/// A NaN loses to a number. PTX: `min` of the dtype. Interpreter: the same.
pub fn min<'k, X: Numeric>(x: X, y: X) -> X
where
    Call<'k>: InKernel,
{
    only_in_kernels()
}

/// `a * b + c` with one rounding, elementwise (scalars or register arrays; the operands combine
/// as in `a * b + c`).
///
/// PTX: `fma.rn.f32` per element (f16 and bf16 converted to f32, the result rounded back).
/// Interpreter: `f32::mul_add`, then rounded to the dtype: the GPU's value bit for bit. For
/// integers, write `a * b + c`.
///
/// # Example
///
/// ```rust
/// use tessel::prelude::*;
///
/// /// y = x * scale + bias, rounded once.
/// #[kernel(grid = (1))]
/// fn affine(x: Gmem<f32, 64, 64>, y: GmemMut<f32, 64, 64>, scale: f32, bias: f32) {
///     let v = x.tile([0, 0], [64, 64]).load(Layout::Wgmma);
///     y.tile([0, 0]).store(fma(v, scale, bias));
/// }
///
/// fn main() -> tessel::Result<()> {
///     let x = HostTensor::from_fn([64, 64], |ix| ix[0] as f32)?;
///     let mut y = HostTensor::zeros([64, 64])?;
///     affine::interpret(&x, &mut y, 0.5, -1.0)?;
///     assert_eq!(y.get(&[10, 0]), Some(4.0));
///     Ok(())
/// }
/// ```
pub fn fma<'k, X>(a: X, b: X, c: X) -> X
where
    X: Numeric,
    X::Elem: MathFloat,
    Call<'k>: InKernel,
{
    only_in_kernels()
}

/// The number of `b`-wide tiles that cover `a`, the last one perhaps partial: `(a + b - 1) / b`.
///
/// How a kernel counts the tiles of a `ragged(..)` dimension (`M / 128` of a ragged `M` is a
/// compile error, as it would leave the partial tile out); usable in the grid:
/// `grid = (cdiv(M, 128))`.
///
/// PTX: `add`, `sub`, `div` (the call is written out as `(a + b - 1) / b` before checking).
/// Interpreter and launch: the same integer arithmetic (checked for overflow in the grid).
///
/// # Example
///
/// ```rust
/// use tessel::prelude::*;
///
/// /// y = x + 1 for any number of rows: the last tile may overhang.
/// #[kernel(grid = (cdiv(M, 64)), ragged(M))]
/// fn add_one(x: Gmem<f32, M, 64>, y: GmemMut<f32, M, 64>) {
///     let i = program_id(0);
///     let v = x.tile([i, 0], [64, 64]).load(Layout::Wgmma); // rows past M read as 0
///     y.tile([i, 0], [64, 64]).store(v + 1.0); // and are not stored
/// }
///
/// fn main() -> tessel::Result<()> {
///     let x = HostTensor::from_fn([100, 64], |ix| ix[0] as f32)?;
///     let mut y = HostTensor::zeros([100, 64])?;
///     add_one::interpret(&x, &mut y)?;
///     assert_eq!(y.get(&[99, 0]), Some(100.0));
///     Ok(())
/// }
/// ```
pub fn cdiv<'k, X>(a: X, b: X) -> X
where
    X: Numeric,
    X::Elem: Int,
    Call<'k>: InKernel,
{
    only_in_kernels()
}
