//! Host element types: the Rust type behind each tessel dtype.
//!
//! Conversions from `f64` round as the GPU's `cvt` does, so the CPU interpreter and the reference
//! code in tests agree with the hardware bit for bit:
//! - `f32`, `f16`, `bf16`: round to nearest even, overflow to ±inf (PTX `cvt.rn`);
//! - `f8e4m3`, `f8e5m2`: round to nearest even, saturate to ±max finite (PTX `cvt.rn.satfinite`,
//!   the only rounding PTX offers for fp8 destinations), NaN stays NaN;
//! - integers: round to nearest even, saturate to the type's range, NaN becomes 0 (PTX `cvt.rni`
//!   with a float source, which always clamps; ISA "cvt", "Floating Point Notes").

use cudarc::driver::{sys, DeviceRepr, ValidAsZeroBits};
use float8::{F8E4M3, F8E5M2};
use half::{bf16, f16};
use tessel_ir::types::round_to_odd_f32;

use sys::CUtensorMapDataType as TmaType;

mod sealed {
    /// Closes [`super::Element`]: only the dtypes tessel's compiler knows can live in a tensor.
    pub trait Sealed {}
}

/// A type that can be an element of a tessel tensor.
///
/// Sealed: implemented for exactly the tessel dtypes `bf16 f16 f32 f8e4m3 f8e5m2 i8 u8 i16 u16 i32
/// u32 i64 u64`.
pub trait Element:
    sealed::Sealed + Copy + Default + PartialEq + std::fmt::Debug + Send + Sync + 'static + DeviceRepr + ValidAsZeroBits
{
    /// The tessel spelling of the dtype, as written in kernel signatures (`"bf16"`, `"f8e4m3"`).
    const DTYPE: &'static str;
    /// Size of one element in bytes.
    const BYTES: usize;

    /// The value as `f64` (exact for every type except `i64`/`u64` beyond 2^53).
    fn to_f64(self) -> f64;

    /// The nearest value of this type, rounded and saturated as the GPU's `cvt` does (module doc).
    fn from_f64(value: f64) -> Self;

    /// The element type of a TMA tensor map over this type. TMA only moves bytes, so 8-bit floats
    /// and integers share `UINT8` (Driver API `CUtensorMapDataType`).
    fn tma_dtype() -> TmaType;
}

/// Implements [`Element`] for each row: type => dtype name, TMA data type, to f64, from f64.
macro_rules! elements {
    ($($ty:ty => $name:literal, $tma:ident, $to:expr, $from:expr;)*) => {$(
        impl sealed::Sealed for $ty {}

        impl Element for $ty {
            const DTYPE: &'static str = $name;
            const BYTES: usize = std::mem::size_of::<$ty>();

            fn to_f64(self) -> f64 {
                ($to)(self)
            }

            fn from_f64(value: f64) -> Self {
                ($from)(value)
            }

            fn tma_dtype() -> TmaType {
                TmaType::$tma
            }
        }
    )*};
}

// Inherent conversions are called by path: `x.to_f64()` would pick this trait's by-value
// `to_f64` over float8's `to_f64(&self)` and recurse. float8's `from_f64` is NVIDIA's
// `__nv_cvt_double_to_fp8` with `__NV_SATFINITE` (cuda_fp8.hpp). Rust's float-to-int `as`
// already saturates and maps NaN to 0, like PTX, and is exact for 64-bit integers, where a
// clamp to an f64 bound would not be (2^63 - 1 has no f64).
elements! {
    f32 => "f32", CU_TENSOR_MAP_DATA_TYPE_FLOAT32, f64::from, |v| v as f32;
    bf16 => "bf16", CU_TENSOR_MAP_DATA_TYPE_BFLOAT16, bf16::to_f64, |v| bf16::from_f32(round_to_odd_f32(v));
    f16 => "f16", CU_TENSOR_MAP_DATA_TYPE_FLOAT16, f16::to_f64, |v| f16::from_f32(round_to_odd_f32(v));
    F8E4M3 => "f8e4m3", CU_TENSOR_MAP_DATA_TYPE_UINT8, |x| F8E4M3::to_f64(&x), F8E4M3::from_f64;
    F8E5M2 => "f8e5m2", CU_TENSOR_MAP_DATA_TYPE_UINT8, |x| F8E5M2::to_f64(&x), F8E5M2::from_f64;
    i8 => "i8", CU_TENSOR_MAP_DATA_TYPE_UINT8, f64::from, |v| saturate(v, i8::MIN, i8::MAX) as i8;
    u8 => "u8", CU_TENSOR_MAP_DATA_TYPE_UINT8, f64::from, |v| saturate(v, u8::MIN, u8::MAX) as u8;
    i16 => "i16", CU_TENSOR_MAP_DATA_TYPE_UINT16, f64::from, |v| saturate(v, i16::MIN, i16::MAX) as i16;
    u16 => "u16", CU_TENSOR_MAP_DATA_TYPE_UINT16, f64::from, |v| saturate(v, u16::MIN, u16::MAX) as u16;
    i32 => "i32", CU_TENSOR_MAP_DATA_TYPE_INT32, f64::from, |v| saturate(v, i32::MIN, i32::MAX) as i32;
    u32 => "u32", CU_TENSOR_MAP_DATA_TYPE_UINT32, f64::from, |v| saturate(v, u32::MIN, u32::MAX) as u32;
    i64 => "i64", CU_TENSOR_MAP_DATA_TYPE_INT64, |x| x as f64, |v: f64| v.round_ties_even() as i64;
    u64 => "u64", CU_TENSOR_MAP_DATA_TYPE_UINT64, |x| x as f64, |v: f64| v.round_ties_even() as u64;
}

/// Rounds to the nearest even integer, clamps to `[min, max]`, and maps NaN to 0 (PTX `cvt.rni`).
fn saturate<T: Into<f64>>(value: f64, min: T, max: T) -> f64 {
    if value.is_nan() {
        return 0.0;
    }
    value.round_ties_even().clamp(min.into(), max.into())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bf16_rounds_to_nearest_even() {
        // 1 + 2^-8 is exactly halfway between bf16 1.0 and 1 + 2^-7: ties go to the even 1.0.
        assert_eq!(<bf16 as Element>::from_f64(1.0 + 2f64.powi(-8)), bf16::ONE);
        // 1 + 3 * 2^-8 is halfway between 1 + 2^-7 (odd) and 1 + 2^-6 (even).
        assert_eq!(<bf16 as Element>::from_f64(1.0 + 3.0 * 2f64.powi(-8)).to_f64(), 1.0 + 2f64.powi(-6));
        // Just above the tie, by less than an f32 ulp: double rounding through f32 would give 1.0.
        assert_eq!(<bf16 as Element>::from_f64(1.0 + 2f64.powi(-8) + 2f64.powi(-40)).to_f64(), 1.0 + 2f64.powi(-7));
    }

    #[test]
    fn f16_and_bf16_overflow_to_infinity() {
        assert!(<f16 as Element>::from_f64(1e6).to_f64().is_infinite());
        assert!(<bf16 as Element>::from_f64(-1e300).to_f64() == f64::NEG_INFINITY);
        assert!(<f16 as Element>::from_f64(f64::NAN).to_f64().is_nan());
    }

    #[test]
    fn f16_is_correctly_rounded_below_the_f32_ulp() {
        // 1 + 2^-11 is the f16 tie between 1.0 and 1 + 2^-10; a tiny excess must round up.
        let v = 1.0 + 2f64.powi(-11) + 2f64.powi(-45);
        assert_eq!(<f16 as Element>::from_f64(v).to_f64(), 1.0 + 2f64.powi(-10));
        assert_eq!(<f16 as Element>::from_f64(1.0 + 2f64.powi(-11)).to_f64(), 1.0);
    }

    #[test]
    fn fp8_saturates_to_max_finite() {
        assert_eq!(<F8E4M3 as Element>::from_f64(1e9).to_f64(), 448.0);
        assert_eq!(<F8E4M3 as Element>::from_f64(-1e9).to_f64(), -448.0);
        assert_eq!(<F8E4M3 as Element>::from_f64(f64::INFINITY).to_f64(), 448.0);
        assert_eq!(<F8E5M2 as Element>::from_f64(1e9).to_f64(), 57344.0);
        assert!(<F8E4M3 as Element>::from_f64(f64::NAN).to_f64().is_nan());
        // 17 is the e4m3 tie between 16 and 18: nearest even mantissa is 16.
        assert_eq!(<F8E4M3 as Element>::from_f64(17.0).to_f64(), 16.0);
    }

    #[test]
    fn integers_round_half_even_and_saturate() {
        assert_eq!(<i8 as Element>::from_f64(2.5), 2);
        assert_eq!(<i8 as Element>::from_f64(3.5), 4);
        assert_eq!(<i8 as Element>::from_f64(-1000.0), -128);
        assert_eq!(<u8 as Element>::from_f64(-3.0), 0);
        assert_eq!(<u8 as Element>::from_f64(300.0), 255);
        assert_eq!(<i32 as Element>::from_f64(f64::NAN), 0);
        assert_eq!(<i32 as Element>::from_f64(1e20), i32::MAX);
        assert_eq!(<u64 as Element>::from_f64(-0.5), 0);
        assert_eq!(<i64 as Element>::from_f64(1e30), i64::MAX);
    }

    #[test]
    fn dtype_names_and_sizes() {
        assert_eq!((bf16::DTYPE, <bf16 as Element>::BYTES), ("bf16", 2));
        assert_eq!((F8E4M3::DTYPE, <F8E4M3 as Element>::BYTES), ("f8e4m3", 1));
        assert_eq!((u64::DTYPE, <u64 as Element>::BYTES), ("u64", 8));
        assert_eq!(i8::tma_dtype(), TmaType::CU_TENSOR_MAP_DATA_TYPE_UINT8);
    }
}
