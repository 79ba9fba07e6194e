//! The types of tessel values: element dtypes, register layouts and shapes.
//!
//! Every structural rule over these enums is an exhaustive `match` (no `_` arm), so adding a dtype or a
//! layout forces a decision everywhere it matters.

use std::fmt;

/// An element type, spelled as in the kernel source (`bf16`, `f8e4m3`, `i32`, ...).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum DType {
    Bf16,
    F16,
    F32,
    Tf32,
    F8E4M3,
    F8E5M2,
    I4,
    I8,
    U8,
    I16,
    U16,
    I32,
    U32,
    I64,
    U64,
    Bool,
}

/// Whether a dtype is a float, a signed or unsigned integer, or a predicate.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Class {
    Float,
    Signed,
    Unsigned,
    Bool,
}

impl DType {
    /// `v` wrapped to the width of an integer dtype (two's complement), as PTX integer arithmetic
    /// wraps; booleans become 0 or 1, and floats are left as they are.
    pub fn wrap(self, v: i64) -> i64 {
        match self {
            DType::I4 => (v << 60) >> 60,
            DType::I8 => v as i8 as i64,
            DType::U8 => v as u8 as i64,
            DType::I16 => v as i16 as i64,
            DType::U16 => v as u16 as i64,
            DType::I32 => v as i32 as i64,
            DType::U32 => v as u32 as i64,
            DType::Bool => i64::from(v != 0),
            DType::I64 | DType::U64 => v,
            DType::Bf16 | DType::F16 | DType::F32 | DType::Tf32 | DType::F8E4M3 | DType::F8E5M2 => v,
        }
    }

    pub const ALL: [DType; 16] = [
        DType::Bf16,
        DType::F16,
        DType::F32,
        DType::Tf32,
        DType::F8E4M3,
        DType::F8E5M2,
        DType::I4,
        DType::I8,
        DType::U8,
        DType::I16,
        DType::U16,
        DType::I32,
        DType::U32,
        DType::I64,
        DType::U64,
        DType::Bool,
    ];

    /// The Rust-side spelling used in kernels and in diagnostics.
    pub fn name(self) -> &'static str {
        match self {
            DType::Bf16 => "bf16",
            DType::F16 => "f16",
            DType::F32 => "f32",
            DType::Tf32 => "tf32",
            DType::F8E4M3 => "f8e4m3",
            DType::F8E5M2 => "f8e5m2",
            DType::I4 => "i4",
            DType::I8 => "i8",
            DType::U8 => "u8",
            DType::I16 => "i16",
            DType::U16 => "u16",
            DType::I32 => "i32",
            DType::U32 => "u32",
            DType::I64 => "i64",
            DType::U64 => "u64",
            DType::Bool => "bool",
        }
    }

    pub fn from_name(name: &str) -> Option<DType> {
        DType::ALL.into_iter().find(|d| d.name() == name)
    }

    /// Storage size in bits (tf32 is stored as a 32-bit float; i4 packs two to a byte).
    pub fn bits(self) -> u32 {
        match self {
            DType::I4 => 4,
            DType::F8E4M3 | DType::F8E5M2 | DType::I8 | DType::U8 | DType::Bool => 8,
            DType::Bf16 | DType::F16 | DType::I16 | DType::U16 => 16,
            DType::F32 | DType::Tf32 | DType::I32 | DType::U32 => 32,
            DType::I64 | DType::U64 => 64,
        }
    }

    /// Bytes one element takes in registers' loads and stores and in scratch: an `i4` takes a byte
    /// there (it is packed only in TMA and WGMMA operands).
    pub fn elem_bytes(self) -> u32 {
        (self.bits() / 8).max(1)
    }

    pub fn class(self) -> Class {
        match self {
            DType::Bf16 | DType::F16 | DType::F32 | DType::Tf32 | DType::F8E4M3 | DType::F8E5M2 => Class::Float,
            DType::I4 | DType::I8 | DType::I16 | DType::I32 | DType::I64 => Class::Signed,
            DType::U8 | DType::U16 | DType::U32 | DType::U64 => Class::Unsigned,
            DType::Bool => Class::Bool,
        }
    }

    pub fn is_float(self) -> bool {
        self.class() == Class::Float
    }

    pub fn is_int(self) -> bool {
        matches!(self.class(), Class::Signed | Class::Unsigned)
    }

    pub fn is_unsigned(self) -> bool {
        self.class() == Class::Unsigned
    }
}

impl fmt::Display for DType {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// A register layout, written `Layout::Wgmma` and so on.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Layout {
    /// The WGMMA accumulator layout (2-D, a multiple of 64 x 8).
    Wgmma,
    /// A row vector of a WGMMA array: one value per row (the result of reducing axis 1).
    WgmmaRow,
    /// A column vector of a WGMMA array: one value per column (the result of reducing axis 0).
    WgmmaCol,
    /// Row-major, element `e` of the flattened array in thread `e % 128`: the layout of plain loads
    /// and stores.
    Strided,
    /// One value for every element.
    Splat,
    /// The warp-level `mma` A-operand fragments (m16 x k16 per warp).
    MmaLhs,
    /// The warp-level `mma` B-operand fragments (k16 x n8 per warp).
    MmaRhs,
    /// The warp-level `mma` accumulator fragments (m16 x n8 per warp).
    MmaAcc,
}

impl Layout {
    pub const ALL: [Layout; 8] = [
        Layout::Wgmma,
        Layout::WgmmaRow,
        Layout::WgmmaCol,
        Layout::Strided,
        Layout::Splat,
        Layout::MmaLhs,
        Layout::MmaRhs,
        Layout::MmaAcc,
    ];

    /// The variant name after `Layout::`.
    pub fn name(self) -> &'static str {
        match self {
            Layout::Wgmma => "Wgmma",
            Layout::WgmmaRow => "WgmmaRow",
            Layout::WgmmaCol => "WgmmaCol",
            Layout::Strided => "Strided",
            Layout::Splat => "Splat",
            Layout::MmaLhs => "MmaLhs",
            Layout::MmaRhs => "MmaRhs",
            Layout::MmaAcc => "MmaAcc",
        }
    }

    pub fn from_name(name: &str) -> Option<Layout> {
        Layout::ALL.into_iter().find(|l| l.name() == name)
    }
}

impl std::fmt::Display for Layout {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "Layout::{}", self.name())
    }
}

/// Rounds `value` to `f32` with round-to-odd: truncate, then set the last bit if anything was
/// lost. Rounding that result to nearest even at a precision at least 2 bits narrower (f16: 11,
/// bf16: 8 bits, against f32's 24) gives the correctly rounded result of `value` itself, which
/// rounding `value as f32` first would not (double rounding). Boldo & Melquiond, "Emulation of
/// FMA and correctly rounded sums: proved algorithms using rounding to odd", IEEE TC 2008.
pub fn round_to_odd_f32(value: f64) -> f32 {
    let nearest = value as f32;
    let back = f64::from(nearest);
    if back == value || value.is_nan() {
        return nearest;
    }
    // `nearest` is one of the two f32 neighbours of `value`; take the one towards zero. An
    // overflow to infinity lands on f32::MAX, whose last bit is already odd.
    let toward_zero = if back.abs() > value.abs() { f32::from_bits(nearest.to_bits() - 1) } else { nearest };
    f32::from_bits(toward_zero.to_bits() | 1)
}

/// `x` rounded to tf32 as `cvt.rna.tf32.f32` rounds it (the only tf32 rounding sm_90 has): f32's
/// exponent and 10 mantissa bits, the low 13 bits rounded to nearest, ties away from zero.
pub fn tf32_round(x: f32) -> f32 {
    if !x.is_finite() {
        return x;
    }
    f32::from_bits((x.to_bits() + 0x1000) & !0x1fff)
}

/// The bits of `value` rounded to a 16- or 8-bit float dtype, exactly as the runtime's host types
/// round it (round to nearest even; fp8 saturates to the largest finite value, like PTX
/// `cvt.rn.satfinite`): what the PTX writer puts in constants and the interpreter computes with.
pub fn narrow_float_bits(dtype: DType, value: f64) -> Option<u16> {
    Some(match dtype {
        DType::Bf16 => half::bf16::from_f32(round_to_odd_f32(value)).to_bits(),
        DType::F16 => half::f16::from_f32(round_to_odd_f32(value)).to_bits(),
        DType::F8E4M3 => float8::F8E4M3::from_f64(value).to_bits() as u16,
        DType::F8E5M2 => float8::F8E5M2::from_f64(value).to_bits() as u16,
        _ => return None,
    })
}

/// How TMA swizzles a box in shared memory; must match the kernel's shared-memory layout.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Swizzle {
    /// No swizzle: rows are stored contiguously.
    None,
    /// 32-byte swizzle: byte address bit 4 ^= bit 7 (repeats every 256 B).
    B32,
    /// 64-byte swizzle: bits 4-5 ^= bits 7-8 (repeats every 512 B).
    B64,
    /// 128-byte swizzle: bits 4-6 ^= bits 7-9 (repeats every 1024 B).
    B128,
}

impl Swizzle {
    /// The swizzle span in bytes (the widest inner box it allows), or `None` without a swizzle.
    pub fn span_bytes(self) -> Option<u64> {
        match self {
            Swizzle::None => None,
            Swizzle::B32 => Some(32),
            Swizzle::B64 => Some(64),
            Swizzle::B128 => Some(128),
        }
    }

    /// The span in bytes, 0 without a swizzle: what the swizzle arithmetic of addresses and
    /// descriptors multiplies by.
    pub fn bytes(self) -> u32 {
        self.span_bytes().map_or(0, |b| b as u32)
    }

    /// Whether the buffer is swizzled at all.
    pub fn is_some(self) -> bool {
        self != Swizzle::None
    }

    /// The swizzle of a span of `bytes` (0: none), as a kernel writes it (`Swizzle128`, `Swizzle<64>`).
    pub fn from_span_bytes(bytes: u32) -> Option<Swizzle> {
        [Swizzle::None, Swizzle::B32, Swizzle::B64, Swizzle::B128]
            .into_iter()
            .find(|s| s.span_bytes().unwrap_or(0) == u64::from(bytes))
    }
}

impl fmt::Display for Swizzle {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.span_bytes() {
            None => f.write_str("unswizzled layout"),
            Some(span) => write!(f, "{span}-byte swizzle"),
        }
    }
}
