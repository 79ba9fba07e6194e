//! The program as bytes: how the macro embeds a kernel's [`Program`] beside its PTX,
//! and how the interpreter reads it back.
//!
//! A compact, self-describing-enough format: unsigned integers as LEB128, signed ones zigzagged
//! first, floats as their IEEE bits (little-endian), strings and sequences with their length first,
//! `Option` as a 0/1 tag, and every enum as a one-byte tag followed by its fields in declaration
//! order. The bytes open with [`MAGIC`] and the format's [`VERSION`], so a program embedded by one
//! version of the macro is never misread by another version of the interpreter.
//!
//! Why not serde: its derive would bring syn, quote and proc-macro2 into every crate that reads a
//! program, which is what this crate exists to avoid; the whole format is the short list of impls
//! at the end of this file, each of which `tests` round-trips.

use std::fmt;

/// The first bytes of every encoded program.
pub const MAGIC: &[u8; 4] = b"TSL\0";

/// The format's version: bumped whenever an encoded type changes.
pub const VERSION: u32 = 5;

/// Why bytes are not a program of this version of tessel.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct DecodeError {
    /// Where in the bytes reading stopped.
    pub offset: usize,
    pub reason: String,
}

impl fmt::Display for DecodeError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "at byte {}: {}", self.offset, self.reason)
    }
}

impl std::error::Error for DecodeError {}

/// A value that can be written as bytes.
pub trait Encode {
    fn encode(&self, out: &mut Vec<u8>);
}

/// A value that can be read back from what [`Encode`] wrote.
pub trait Decode: Sized {
    fn decode(r: &mut Reader<'_>) -> Result<Self, DecodeError>;
}

/// `value`'s bytes, with the header.
pub fn to_bytes<T: Encode>(value: &T) -> Vec<u8> {
    let mut out = MAGIC.to_vec();
    VERSION.encode(&mut out);
    value.encode(&mut out);
    out
}

/// The value `to_bytes` wrote, checking the header and that nothing follows it.
pub fn from_bytes<T: Decode>(bytes: &[u8]) -> Result<T, DecodeError> {
    let mut r = Reader { bytes, at: 0 };
    if !bytes.starts_with(MAGIC) {
        return Err(r.fail("not an encoded tessel program"));
    }
    r.at = MAGIC.len();
    let version = u32::decode(&mut r)?;
    if version != VERSION {
        return Err(r.fail(format!(
            "a program of format version {version}, and this tessel reads version {VERSION}: \
             the kernel was compiled by another version of tessel's macro"
        )));
    }
    let value = T::decode(&mut r)?;
    match r.at == bytes.len() {
        true => Ok(value),
        false => Err(r.fail("bytes left over after the program")),
    }
}

/// A cursor over encoded bytes.
pub struct Reader<'a> {
    bytes: &'a [u8],
    at: usize,
}

impl Reader<'_> {
    pub fn byte(&mut self) -> Result<u8, DecodeError> {
        let b = *self.bytes.get(self.at).ok_or_else(|| self.fail("the bytes end early"))?;
        self.at += 1;
        Ok(b)
    }

    fn take(&mut self, n: usize) -> Result<&[u8], DecodeError> {
        let end = self.at.checked_add(n).filter(|&e| e <= self.bytes.len());
        let end = end.ok_or_else(|| self.fail("the bytes end early"))?;
        let slice = &self.bytes[self.at..end];
        self.at = end;
        Ok(slice)
    }

    /// An error at the current offset.
    pub fn fail(&self, reason: impl Into<String>) -> DecodeError {
        DecodeError { offset: self.at, reason: reason.into() }
    }

    /// The error for an enum tag no variant has.
    pub fn bad_tag(&self, what: &str, tag: u8) -> DecodeError {
        self.fail(format!("{tag} is not a tag of {what}"))
    }

    /// A length, bounded by the bytes left (every element takes at least one byte), so that
    /// corrupt bytes never make a huge allocation.
    fn len(&mut self) -> Result<usize, DecodeError> {
        let n = u64::decode(self)?;
        usize::try_from(n)
            .ok()
            .filter(|&n| n <= self.bytes.len() - self.at)
            .ok_or_else(|| self.fail("a length past the end"))
    }
}

impl Encode for u64 {
    fn encode(&self, out: &mut Vec<u8>) {
        let mut v = *self;
        while v >= 0x80 {
            out.push((v as u8) | 0x80);
            v >>= 7;
        }
        out.push(v as u8);
    }
}

impl Decode for u64 {
    fn decode(r: &mut Reader<'_>) -> Result<Self, DecodeError> {
        let mut v = 0u64;
        for shift in (0..64).step_by(7) {
            let b = r.byte()?;
            v |= u64::from(b & 0x7f)
                .checked_shl(shift)
                .filter(|x| x >> shift == u64::from(b & 0x7f))
                .ok_or_else(|| r.fail("an integer too large"))?;
            if b & 0x80 == 0 {
                return Ok(v);
            }
        }
        Err(r.fail("an integer too long"))
    }
}

/// Unsigned integers narrower than 64 bits go through `u64`, checking the range on the way back.
macro_rules! via_u64 {
    ($($t:ty),*) => {$(
        impl Encode for $t {
            fn encode(&self, out: &mut Vec<u8>) {
                (*self as u64).encode(out)
            }
        }

        impl Decode for $t {
            fn decode(r: &mut Reader<'_>) -> Result<Self, DecodeError> {
                let v = u64::decode(r)?;
                <$t>::try_from(v).map_err(|_| r.fail(format!("{v} does not fit a {}", stringify!($t))))
            }
        }
    )*};
}

via_u64!(u32, usize);

impl Encode for i64 {
    fn encode(&self, out: &mut Vec<u8>) {
        (((*self << 1) ^ (*self >> 63)) as u64).encode(out)
    }
}

impl Decode for i64 {
    fn decode(r: &mut Reader<'_>) -> Result<Self, DecodeError> {
        let v = u64::decode(r)?;
        Ok(((v >> 1) as i64) ^ -((v & 1) as i64))
    }
}

impl Encode for f64 {
    fn encode(&self, out: &mut Vec<u8>) {
        out.extend_from_slice(&self.to_bits().to_le_bytes())
    }
}

impl Decode for f64 {
    fn decode(r: &mut Reader<'_>) -> Result<Self, DecodeError> {
        let bytes = r.take(8)?;
        let bits = u64::from_le_bytes(bytes.try_into().map_err(|_| r.fail("a float of other than 8 bytes"))?);
        Ok(f64::from_bits(bits))
    }
}

impl Encode for bool {
    fn encode(&self, out: &mut Vec<u8>) {
        out.push(u8::from(*self))
    }
}

impl Decode for bool {
    fn decode(r: &mut Reader<'_>) -> Result<Self, DecodeError> {
        match r.byte()? {
            0 => Ok(false),
            1 => Ok(true),
            b => Err(r.bad_tag("bool", b)),
        }
    }
}

impl Encode for String {
    fn encode(&self, out: &mut Vec<u8>) {
        self.len().encode(out);
        out.extend_from_slice(self.as_bytes());
    }
}

impl Decode for String {
    fn decode(r: &mut Reader<'_>) -> Result<Self, DecodeError> {
        let n = r.len()?;
        let bytes = r.take(n)?.to_vec();
        String::from_utf8(bytes).map_err(|_| r.fail("a string that is not UTF-8"))
    }
}

impl<T: Encode> Encode for Vec<T> {
    fn encode(&self, out: &mut Vec<u8>) {
        self.len().encode(out);
        self.iter().for_each(|x| x.encode(out));
    }
}

impl<T: Decode> Decode for Vec<T> {
    fn decode(r: &mut Reader<'_>) -> Result<Self, DecodeError> {
        let n = r.len()?;
        (0..n).map(|_| T::decode(r)).collect()
    }
}

impl<T: Encode> Encode for Option<T> {
    fn encode(&self, out: &mut Vec<u8>) {
        match self {
            None => out.push(0),
            Some(x) => {
                out.push(1);
                x.encode(out);
            }
        }
    }
}

impl<T: Decode> Decode for Option<T> {
    fn decode(r: &mut Reader<'_>) -> Result<Self, DecodeError> {
        match r.byte()? {
            0 => Ok(None),
            1 => T::decode(r).map(Some),
            b => Err(r.bad_tag("Option", b)),
        }
    }
}

impl<T: Encode + ?Sized> Encode for Box<T> {
    fn encode(&self, out: &mut Vec<u8>) {
        (**self).encode(out)
    }
}

impl<T: Decode> Decode for Box<T> {
    fn decode(r: &mut Reader<'_>) -> Result<Self, DecodeError> {
        T::decode(r).map(Box::new)
    }
}

impl<T: Encode, const N: usize> Encode for [T; N] {
    fn encode(&self, out: &mut Vec<u8>) {
        self.iter().for_each(|x| x.encode(out));
    }
}

impl<T: Decode, const N: usize> Decode for [T; N] {
    fn decode(r: &mut Reader<'_>) -> Result<Self, DecodeError> {
        let items = (0..N).map(|_| T::decode(r)).collect::<Result<Vec<T>, _>>()?;
        items.try_into().map_err(|_| r.fail("an array of the wrong length"))
    }
}

impl<A: Encode, B: Encode> Encode for (A, B) {
    fn encode(&self, out: &mut Vec<u8>) {
        self.0.encode(out);
        self.1.encode(out);
    }
}

impl<A: Decode, B: Decode> Decode for (A, B) {
    fn decode(r: &mut Reader<'_>) -> Result<Self, DecodeError> {
        Ok((A::decode(r)?, B::decode(r)?))
    }
}

impl<A: Encode, B: Encode, C: Encode> Encode for (A, B, C) {
    fn encode(&self, out: &mut Vec<u8>) {
        self.0.encode(out);
        self.1.encode(out);
        self.2.encode(out);
    }
}

impl<A: Decode, B: Decode, C: Decode> Decode for (A, B, C) {
    fn decode(r: &mut Reader<'_>) -> Result<Self, DecodeError> {
        Ok((A::decode(r)?, B::decode(r)?, C::decode(r)?))
    }
}

/// `Encode` and `Decode` for a struct, field by field in the order listed (which must name every
/// field: the decoder builds the struct with them).
macro_rules! codec_struct {
    ($ty:ident { $($field:ident),* $(,)? }) => {
        impl Encode for $ty {
            fn encode(&self, out: &mut Vec<u8>) {
                $(self.$field.encode(out);)*
            }
        }

        impl Decode for $ty {
            fn decode(r: &mut Reader<'_>) -> Result<Self, DecodeError> {
                Ok($ty { $($field: Decode::decode(r)?),* })
            }
        }
    };
}

/// `Encode` and `Decode` for an enum: each variant with its tag, and its fields by name
/// (`Let { targets, init }`) or by position (`Smem(alloc)`: names for the positions). The encoder's
/// `match` is exhaustive, so a variant missing here is a compile error.
macro_rules! codec_enum {
    ($ty:ident { $($tag:literal => $var:ident $({ $($f:ident),* })? $(( $($p:ident),* ))?),* $(,)? }) => {
        impl Encode for $ty {
            fn encode(&self, out: &mut Vec<u8>) {
                match self {
                    $($ty::$var $({ $($f),* })? $(( $($p),* ))? => {
                        out.push($tag);
                        $($($f.encode(out);)*)?
                        $($($p.encode(out);)*)?
                    })*
                }
            }
        }

        impl Decode for $ty {
            fn decode(r: &mut Reader<'_>) -> Result<Self, DecodeError> {
                Ok(match r.byte()? {
                    $($tag => $ty::$var $({ $($f: Decode::decode(r)?),* })? $(( $({ let $p = Decode::decode(r)?; $p }),* ))?,)*
                    tag => return Err(r.bad_tag(stringify!($ty), tag)),
                })
            }
        }
    };
}

use crate::memory::{Alloc, AllocKind, TensorMapUse};
use crate::ops::{BinOp, GmemReduce, MathFn, MathFn2, ReduceOp, SemaphoreOp, UnOp, Waiters};
use crate::program::*;
use crate::ty::{AccTy, BarrierTy, DimVal, GmemTy, RegsTy, SmemTy, Ty};
use crate::types::{DType, Layout, Swizzle};

codec_struct!(Program {
    name,
    params,
    runtime_dims,
    divisibility,
    ragged,
    grid,
    grid_text,
    warpgroups,
    cluster,
    max_registers,
    smem_bytes,
    scratch_bytes,
    dynamic_smem_bytes,
    allocs,
    slots,
    body,
    tensor_maps,
    waits_on_semaphores,
    devices,
    files,
    sites,
});
codec_struct!(SourceLoc { file, line, column });
codec_struct!(ParamInfo { name, kind });
codec_enum!(ParamKind { 0 => Gmem { dtype, shape, mutable, peers }, 1 => Scalar(dtype) });
codec_enum!(DimSpec { 0 => Static(extent), 1 => Runtime(dim) });
codec_struct!(TensorMapUse { param, box_shape, swizzle, dtype, peers });
codec_struct!(Alloc { name, kind, offset, bytes });
codec_enum!(AllocKind {
    0 => Smem { dtype, stored, swizzle, transposed },
    1 => Barrier { arrivals, count },
    2 => Acc { dtype, shape },
});
codec_struct!(Block { stmts, tail });
codec_struct!(Target { slot, mutable });
codec_enum!(Stmt {
    0 => Let { targets, init },
    1 => Assign { slot, value },
    2 => For { slot, start, end, body },
    3 => If { cond, then, otherwise },
    4 => Block(block),
    5 => Expr(expr),
});
codec_enum!(Allocation { 0 => Acc(alloc), 1 => Smem(alloc), 2 => Barrier { alloc, array } });
codec_enum!(Spread { 0 => Rows, 1 => Cols, 2 => Splat });
codec_struct!(Literal { value, suffix, dtype });
codec_enum!(LitValue { 0 => Int(v), 1 => Float(v), 2 => Bool(v) });
codec_struct!(Expr { ty, kind, site });
codec_enum!(ExprKind {
    0 => Lit(lit),
    1 => Local(slot),
    2 => Const(value),
    3 => Dim(dim),
    4 => Tuple(items),
    5 => If { cond, then, otherwise },
    6 => Unary { op, operand },
    7 => Binary { op, lhs, rhs },
    8 => ScalarCast { value, dtype },
    9 => ProgramId(axis),
    10 => NumPrograms(axis),
    11 => WarpgroupId,
    12 => ClusterRank,
    13 => Tile { gmem, index, shape },
    14 => At { base, index },
    15 => Slice { base, starts, lens },
    16 => Transpose { base, swap },
    17 => Load { src, layout },
    18 => Store { dst, value },
    19 => Splat { value, dtype, shape },
    20 => Iota { dtype, shape, axis },
    21 => Wgmma { acc, a, b, accumulate },
    22 => WgmmaWait(n),
    23 => Mma { acc, a, b },
    24 => CopyIn { src, dst, barrier, multicast, map },
    25 => CopyOut { src, dst, map, reduce },
    26 => CopyToPeer { src, dst, barrier, rank },
    27 => CommitSmem,
    28 => WaitSmemToGmem { n, complete },
    29 => Arrive { barrier, cluster },
    30 => Wait { barrier, waiters },
    31 => Semaphore { op, sems, index, end, count },
    32 => SetMaxRegisters(n),
    33 => RunScoped { allocs, body, collective, sync_entry, sync_exit, sync_cluster },
    34 => RunState { init, acc, slot, body },
    35 => Math { func, arg },
    36 => Math2 { func, lhs, rhs },
    37 => Fma(operands),
    38 => Cast { value, dtype },
    39 => Bitcast { value, dtype },
    40 => Reduce { value, op, axis },
    41 => Broadcast { value, shape, spread },
    42 => ToLayout(value),
    43 => LayoutCast(value),
    44 => AtomicAdd { dst, value },
    45 => DeviceId,
    46 => Remote { gmem, rank },
    47 => GlobalTimer,
});
codec_enum!(Ty {
    0 => Unit,
    1 => Error,
    2 => Scalar(dtype),
    3 => Tuple(items),
    4 => Gmem(gmem),
    5 => Tile(gmem, shape),
    6 => Smem(smem),
    7 => Barrier(barrier),
    8 => Acc(acc),
    9 => PreinitAcc(regs),
    10 => Regs(regs),
});
codec_enum!(DimVal { 0 => Static(extent), 1 => Runtime(name) });
codec_struct!(GmemTy { param, name, dtype, shape, mutable, peers, remote });
codec_struct!(SmemTy { alloc, dtype, stored, transposed, swizzle, sliced });
codec_struct!(BarrierTy { alloc, arrivals, array });
codec_struct!(AccTy { dtype, shape, sliced });
codec_struct!(RegsTy { dtype, shape, layout });
codec_enum!(Layout {
    0 => Wgmma,
    1 => WgmmaRow,
    2 => WgmmaCol,
    3 => Strided,
    4 => Splat,
    5 => MmaLhs,
    6 => MmaRhs,
    7 => MmaAcc,
});
codec_enum!(Waiters { 0 => Each, 1 => InStep });
codec_enum!(Swizzle { 0 => None, 1 => B32, 2 => B64, 3 => B128 });
codec_enum!(DType {
    0 => Bf16,
    1 => F16,
    2 => F32,
    3 => Tf32,
    4 => F8E4M3,
    5 => F8E5M2,
    6 => I4,
    7 => I8,
    8 => U8,
    9 => I16,
    10 => U16,
    11 => I32,
    12 => U32,
    13 => I64,
    14 => U64,
    15 => Bool,
});
codec_enum!(BinOp {
    0 => Add,
    1 => Sub,
    2 => Mul,
    3 => Div,
    4 => Rem,
    5 => Shl,
    6 => Shr,
    7 => BitAnd,
    8 => BitOr,
    9 => BitXor,
    10 => And,
    11 => Or,
    12 => Eq,
    13 => Ne,
    14 => Lt,
    15 => Le,
    16 => Gt,
    17 => Ge,
});
codec_enum!(UnOp { 0 => Neg, 1 => Not });
codec_enum!(MathFn {
    0 => Exp2,
    1 => Exp,
    2 => Log2,
    3 => Log,
    4 => Sqrt,
    5 => Rsqrt,
    6 => Tanh,
    7 => Abs,
    8 => Recip,
    9 => Floor,
    10 => Ceil,
    11 => Round,
    12 => Trunc,
});
codec_enum!(MathFn2 { 0 => Max, 1 => Min });
codec_enum!(ReduceOp { 0 => Sum, 1 => Max, 2 => Min });
codec_enum!(SemaphoreOp { 0 => Signal, 1 => Wait });
codec_enum!(GmemReduce { 0 => Add, 1 => Min, 2 => Max, 3 => Inc, 4 => Dec, 5 => And, 6 => Or, 7 => Xor });

#[cfg(test)]
mod tests {
    use super::*;

    fn round_trip<T: Encode + Decode + fmt::Debug + PartialEq>(value: T) {
        let bytes = to_bytes(&value);
        assert_eq!(from_bytes::<T>(&bytes).unwrap(), value);
    }

    #[test]
    fn integers_floats_and_strings_round_trip() {
        for v in [0u64, 1, 127, 128, 300, u64::from(u32::MAX), u64::MAX] {
            round_trip(v);
        }
        for v in [0i64, -1, 1, -64, 64, i64::MIN, i64::MAX] {
            round_trip(v);
        }
        for v in [0.0f64, -0.0, 1.5, f64::MAX, f64::MIN_POSITIVE, f64::INFINITY] {
            round_trip(v);
        }
        round_trip(String::from("grid = (M / 64, N / 64)"));
        round_trip(vec![Some(3usize), None, Some(0)]);
        round_trip((7u32, -3i64, [1usize, 2, 3]));
        round_trip(vec![SourceLoc { file: 0, line: 12, column: 9 }, SourceLoc { file: 1, line: 0, column: 1 }]);
    }

    #[test]
    fn every_tag_of_the_plain_enums_round_trips() {
        DType::ALL.into_iter().for_each(round_trip);
        round_trip(vec![BinOp::Add, BinOp::Ge, BinOp::Shl]);
        round_trip(vec![MathFn::Exp2, MathFn::Trunc]);
    }

    #[test]
    fn bad_bytes_are_errors_not_panics() {
        let good = to_bytes(&vec![String::from("abc"), String::from("de")]);
        // Every truncation and every single-byte corruption either decodes or fails cleanly.
        for n in 0..good.len() {
            assert!(from_bytes::<Vec<String>>(&good[..n]).is_err());
        }
        for i in 0..good.len() {
            for b in [0u8, 1, 0x7f, 0x80, 0xff] {
                let mut bad = good.clone();
                bad[i] = b;
                let _ = from_bytes::<Vec<String>>(&bad);
            }
        }
        let mut longer = good.clone();
        longer.push(0);
        assert!(from_bytes::<Vec<String>>(&longer).unwrap_err().reason.contains("left over"));
        let mut other = good;
        other[4] = 99;
        assert!(from_bytes::<Vec<String>>(&other).unwrap_err().reason.contains("format version 99"));
    }
}
