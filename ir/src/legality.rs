//! Legality tables: what the hardware accepts, as data.
//!
//! One module read by the checker (`typeck`), the PTX writer (`ptx`) and the interpreter, so that the
//! three can never disagree. Each table cites the PTX ISA section it transcribes
//! (NVIDIA PTX ISA 9.x, `docs.nvidia.com/cuda/parallel-thread-execution/#<anchor>`).

mod devices;

pub use devices::*;

use crate::ops::GmemReduce;
use crate::types::{DType, Swizzle};

/// Shared memory one block may use on sm_90 with the opt-in attribute
/// (CUDA Programming Guide, "Compute capabilities", 227 KiB).
pub const MAX_SMEM_BYTES: u64 = 232_448;

/// Bytes of one mbarrier object (PTX ISA #parallel-synchronization-and-communication-instructions-mbarrier).
pub const MBARRIER_BYTES: u64 = 8;

/// One row of the WGMMA dtype matrix: an operand dtype (A and B) and what it may accumulate into.
///
/// PTX ISA #asynchronous-warpgroup-level-matrix-shape (9.7.15.5.1.1), table "wgmma.mma_async shapes
/// and types".
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct WgmmaRow {
    /// The element type of A and B (fp8 rows also accept the other fp8 type for the other operand).
    pub operand: DType,
    /// Accumulator dtypes, in the order diagnostics list them.
    pub accumulators: &'static [DType],
    /// K consumed by one instruction.
    pub k_step: i64,
    /// Whether the immTrans operands exist (MN-major operands in shared memory).
    pub transposable: bool,
    /// Whether A may come from registers.
    pub a_in_registers: bool,
    /// Which N values one instruction accepts.
    pub n_rule: NRule,
}

/// The legal N of one wgmma instruction.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum NRule {
    /// 8, 16, ..., 256.
    Step8,
    /// 8, 16, 24, 32, then 48, 64, ..., 256 (integer wgmma).
    Integer,
}

impl NRule {
    pub fn allows(self, n: i64) -> bool {
        match self {
            NRule::Step8 => n > 0 && n <= 256 && n % 8 == 0,
            NRule::Integer => matches!(n, 8 | 16 | 24 | 32) || (n > 32 && n <= 256 && n % 16 == 0),
        }
    }
}

/// The WGMMA matrix. Integer rows list only `i8`: PTX also has `.u8` forms, which tessel does not
/// emit (the catalog's E12), so `u8` has no row.
pub const WGMMA: &[WgmmaRow] = &[
    WgmmaRow {
        operand: DType::F16,
        accumulators: &[DType::F32, DType::F16],
        k_step: 16,
        transposable: true,
        a_in_registers: true,
        n_rule: NRule::Step8,
    },
    WgmmaRow {
        operand: DType::Bf16,
        accumulators: &[DType::F32],
        k_step: 16,
        transposable: true,
        a_in_registers: true,
        n_rule: NRule::Step8,
    },
    WgmmaRow {
        operand: DType::Tf32,
        accumulators: &[DType::F32],
        k_step: 8,
        transposable: false,
        a_in_registers: false,
        n_rule: NRule::Step8,
    },
    WgmmaRow {
        operand: DType::F8E4M3,
        accumulators: &[DType::F32, DType::F16],
        k_step: 32,
        transposable: false,
        a_in_registers: true,
        n_rule: NRule::Step8,
    },
    WgmmaRow {
        operand: DType::F8E5M2,
        accumulators: &[DType::F32, DType::F16],
        k_step: 32,
        transposable: false,
        a_in_registers: true,
        n_rule: NRule::Step8,
    },
    WgmmaRow {
        operand: DType::I8,
        accumulators: &[DType::I32],
        k_step: 32,
        transposable: false,
        a_in_registers: true,
        n_rule: NRule::Integer,
    },
];

/// The row for an operand dtype, if WGMMA takes it at all.
pub fn wgmma_row(operand: DType) -> Option<&'static WgmmaRow> {
    WGMMA.iter().find(|r| r.operand == operand)
}

/// Whether A and B dtypes may meet in one wgmma: equal, or any mix of the two fp8 types.
pub fn wgmma_operands_compatible(a: DType, b: DType) -> bool {
    let fp8 = |d| matches!(d, DType::F8E4M3 | DType::F8E5M2);
    a == b || (fp8(a) && fp8(b))
}

/// The M of every wgmma instruction.
pub const WGMMA_M: i64 = 64;

/// Accumulator dtypes any WGMMA can write (catalog E1).
pub const WGMMA_OUT: &[DType] = &[DType::F32, DType::F16, DType::I32];

/// Operand dtypes a warp-level `mma` takes, with its instruction shape (m, n, k) and accumulator.
///
/// PTX ISA #warp-level-matrix-shape (9.7.14.5.x): `mma.sync.aligned.m16n8k16` for f16/bf16,
/// `m16n8k32` for fp8 (sm_89+) and s8, `m16n8k64` for s4.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct MmaRow {
    pub operand: DType,
    pub shape: (i64, i64, i64),
    pub accumulator: DType,
}

pub const MMA: &[MmaRow] = &[
    MmaRow { operand: DType::F16, shape: (16, 8, 16), accumulator: DType::F32 },
    MmaRow { operand: DType::Bf16, shape: (16, 8, 16), accumulator: DType::F32 },
    MmaRow { operand: DType::F8E4M3, shape: (16, 8, 32), accumulator: DType::F32 },
    MmaRow { operand: DType::F8E5M2, shape: (16, 8, 32), accumulator: DType::F32 },
    MmaRow { operand: DType::I8, shape: (16, 8, 32), accumulator: DType::I32 },
    MmaRow { operand: DType::I4, shape: (16, 8, 64), accumulator: DType::I32 },
];

pub fn mma_row(operand: DType) -> Option<&'static MmaRow> {
    MMA.iter().find(|r| r.operand == operand)
}

/// Warps along M in a warpgroup's `mma` (Mosaic GPU's `m_warps`): the accumulator has 16 rows per warp.
pub const MMA_M_WARPS: &[i64] = &[1, 2, 4];

/// Shared-memory swizzles WGMMA and TMA share, in bytes, with the descriptor's layout code
/// (PTX ISA #asynchronous-warpgroup-level-matrix-shared-memory-layout-matrix-descriptor: bits 62-63,
/// 1 = 128B, 2 = 64B, 3 = 32B) and the driver's `CUtensorMapSwizzle` value.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct SwizzleRow {
    pub bytes: u32,
    pub descriptor_layout: u64,
    pub tensor_map_swizzle: u32,
}

pub const SWIZZLES: &[SwizzleRow] = &[
    SwizzleRow { bytes: 32, descriptor_layout: 3, tensor_map_swizzle: 1 },
    SwizzleRow { bytes: 64, descriptor_layout: 2, tensor_map_swizzle: 2 },
    SwizzleRow { bytes: 128, descriptor_layout: 1, tensor_map_swizzle: 3 },
];

pub fn swizzle_row(bytes: u32) -> Option<&'static SwizzleRow> {
    SWIZZLES.iter().find(|s| s.bytes == bytes)
}

/// Elements in one swizzled row: `8 * swizzle / bitwidth` (catalog E15).
pub fn swizzle_elems(swizzle: Swizzle, dtype: DType) -> i64 {
    (8 * swizzle.bytes() / dtype.bits()) as i64
}

/// TMA limits (CUDA Driver API, `cuTensorMapEncodeTiled`): box extents, alignment.
pub const TMA_MAX_BOX: i64 = 256;
pub const TMA_ALIGN_BYTES: i64 = 16;
/// TMA shared-memory destinations are 128-byte aligned; tessel aligns swizzled buffers to 1024 so that
/// descriptors need no base offset (checked on the H200).
pub const SMEM_ALIGN_SWIZZLED: u64 = 1024;
pub const SMEM_ALIGN_PLAIN: u64 = 128;

/// `setmaxnreg` takes 24..=256 in multiples of 8 (PTX ISA #miscellaneous-instructions-setmaxnreg).
pub fn max_registers_legal(n: u32) -> bool {
    (24..=256).contains(&n) && n.is_multiple_of(8)
}

/// One row of the TMA reduction table: an operation of `cp.reduce.async.bulk.tensor` and the
/// element types it combines (the tensor map's dtype; the instruction names no type).
///
/// PTX ISA #data-movement-and-conversion-instructions-cp-reduce-async-bulk-tensor, the table of
/// `.redOp` and element types: `.add` on `.u32 .s32 .u64 .f32 .f16 .bf16`; `.min`/`.max` on
/// `.u32 .s32 .u64 .s64 .f16 .bf16`; `.inc`/`.dec` on `.u32`; `.and`/`.or`/`.xor` on `.b32 .b64`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct TmaReduceRow {
    pub op: GmemReduce,
    pub dtypes: &'static [DType],
}

pub const TMA_REDUCE: &[TmaReduceRow] = &[
    TmaReduceRow {
        op: GmemReduce::Add,
        dtypes: &[DType::F32, DType::F16, DType::Bf16, DType::I32, DType::U32, DType::U64],
    },
    TmaReduceRow {
        op: GmemReduce::Min,
        dtypes: &[DType::F16, DType::Bf16, DType::I32, DType::U32, DType::I64, DType::U64],
    },
    TmaReduceRow {
        op: GmemReduce::Max,
        dtypes: &[DType::F16, DType::Bf16, DType::I32, DType::U32, DType::I64, DType::U64],
    },
    TmaReduceRow { op: GmemReduce::Inc, dtypes: &[DType::U32] },
    TmaReduceRow { op: GmemReduce::Dec, dtypes: &[DType::U32] },
    TmaReduceRow { op: GmemReduce::And, dtypes: &[DType::I32, DType::U32, DType::I64, DType::U64] },
    TmaReduceRow { op: GmemReduce::Or, dtypes: &[DType::I32, DType::U32, DType::I64, DType::U64] },
    TmaReduceRow { op: GmemReduce::Xor, dtypes: &[DType::I32, DType::U32, DType::I64, DType::U64] },
];

/// The dtypes a TMA reduction `op` combines.
pub fn tma_reduce_dtypes(op: GmemReduce) -> &'static [DType] {
    TMA_REDUCE.iter().find(|r| r.op == op).map_or(&[], |r| r.dtypes)
}

/// How `red.global.add` adds one dtype from registers, and how it adds two side-by-side elements
/// at once.
///
/// PTX ISA #parallel-synchronization-and-communication-instructions-red: the scalar `.add` takes
/// `.u32 .s32 .u64 .f32 .f64` (not `.s64`: ptxas 12.9 rejects it), and with `.noftz` `.f16 .bf16`
/// and the packed `.f16x2 .bf16x2`; the vector form `.v2.f32`/`.v4.f32` needs sm_90 and PTX ISA
/// 8.1 (ptxas 12.9: "red instruction with vector types requires PTX ISA .version 8.1"). Integer
/// adds have no vector form.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct AtomicAddRow {
    pub dtype: DType,
    /// The qualifiers and type after `red.global.add` for one element.
    pub single: &'static str,
    /// The same for two side-by-side elements (aligned to both), if there is such a form.
    pub pair: Option<PairAdd>,
}

/// `red.global.add` of two side-by-side elements.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct PairAdd {
    /// The qualifiers and type after `red.global.add`.
    pub suffix: &'static str,
    /// Whether the operand is a brace-enclosed vector of the two registers; else one `.b32` that
    /// packs them, the first element in the low half.
    pub vector: bool,
    /// The PTX ISA version (major, minor) the form needs.
    pub version: (u32, u32),
}

pub const ATOMIC_ADD: &[AtomicAddRow] = &[
    AtomicAddRow {
        dtype: DType::F32,
        single: ".f32",
        pair: Some(PairAdd { suffix: ".v2.f32", vector: true, version: (8, 1) }),
    },
    AtomicAddRow {
        dtype: DType::F16,
        single: ".noftz.f16",
        pair: Some(PairAdd { suffix: ".noftz.f16x2", vector: false, version: (8, 0) }),
    },
    AtomicAddRow {
        dtype: DType::Bf16,
        single: ".noftz.bf16",
        pair: Some(PairAdd { suffix: ".noftz.bf16x2", vector: false, version: (8, 0) }),
    },
    AtomicAddRow { dtype: DType::I32, single: ".s32", pair: None },
    AtomicAddRow { dtype: DType::U32, single: ".u32", pair: None },
    AtomicAddRow { dtype: DType::U64, single: ".u64", pair: None },
];

/// The row of `dtype`, if `red.global.add` adds it from registers.
pub fn atomic_add_row(dtype: DType) -> Option<&'static AtomicAddRow> {
    ATOMIC_ADD.iter().find(|r| r.dtype == dtype)
}

/// The dtypes a scalar kernel parameter may have: those the kernel ABI passes by value as a
/// `.param` of their own type, and the launch as the Rust type of the same name.
pub const SCALAR_PARAMS: &[DType] = &[DType::F32, DType::I32, DType::U32, DType::I64, DType::U64];

/// The range of an integer dtype, for saturating conversions.
pub fn int_range(d: DType) -> (i64, i64) {
    match d {
        DType::I4 => (-8, 7),
        DType::I8 => (-128, 127),
        DType::U8 => (0, 255),
        DType::I16 => (-32768, 32767),
        DType::U16 => (0, 65535),
        DType::I32 => (i32::MIN as i64, i32::MAX as i64),
        DType::U32 => (0, u32::MAX as i64),
        DType::I64 | DType::U64 | DType::Bool => (i64::MIN, i64::MAX),
        DType::Bf16 | DType::F16 | DType::F32 | DType::Tf32 | DType::F8E4M3 | DType::F8E5M2 => (i64::MIN, i64::MAX),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn integer_n_matches_the_isa_list() {
        let legal: Vec<i64> = (1..=256).filter(|&n| NRule::Integer.allows(n)).collect();
        let mut expected = vec![8, 16, 24, 32];
        expected.extend((48..=256).step_by(16));
        assert_eq!(legal, expected);
        assert!(!NRule::Integer.allows(40));
        assert!(NRule::Integer.allows(240));
    }

    #[test]
    fn float_n_is_every_multiple_of_eight_to_256() {
        let legal: Vec<i64> = (1..=300).filter(|&n| NRule::Step8.allows(n)).collect();
        assert_eq!(legal, (8..=256).step_by(8).collect::<Vec<_>>());
    }

    #[test]
    fn wgmma_accumulators_per_isa_table() {
        let acc = |d| wgmma_row(d).map(|r| r.accumulators.to_vec());
        assert_eq!(acc(DType::F16), Some(vec![DType::F32, DType::F16]));
        assert_eq!(acc(DType::Bf16), Some(vec![DType::F32]));
        assert_eq!(acc(DType::Tf32), Some(vec![DType::F32]));
        assert_eq!(acc(DType::F8E4M3), Some(vec![DType::F32, DType::F16]));
        assert_eq!(acc(DType::F8E5M2), Some(vec![DType::F32, DType::F16]));
        assert_eq!(acc(DType::I8), Some(vec![DType::I32]));
        assert_eq!(acc(DType::U8), None);
        assert_eq!(acc(DType::F32), None);
    }

    #[test]
    fn k_per_instruction_is_32_bytes() {
        for row in WGMMA {
            assert_eq!(row.k_step * row.operand.bits() as i64, 256, "{:?}", row.operand);
        }
    }

    #[test]
    fn only_16_bit_operands_transpose() {
        for row in WGMMA {
            assert_eq!(row.transposable, row.operand.bits() == 16, "{:?}", row.operand);
        }
        assert!(!wgmma_row(DType::Tf32).unwrap().a_in_registers);
    }

    #[test]
    fn fp8_types_mix_and_nothing_else_does() {
        assert!(wgmma_operands_compatible(DType::F8E4M3, DType::F8E5M2));
        assert!(!wgmma_operands_compatible(DType::F16, DType::Bf16));
        assert!(!wgmma_operands_compatible(DType::I8, DType::F8E4M3));
    }

    #[test]
    fn mma_shapes_per_isa() {
        assert_eq!(mma_row(DType::Bf16).unwrap().shape, (16, 8, 16));
        assert_eq!(mma_row(DType::I8).unwrap().shape, (16, 8, 32));
        assert_eq!(mma_row(DType::I8).unwrap().accumulator, DType::I32);
        assert_eq!(mma_row(DType::I4).unwrap().shape, (16, 8, 64));
        assert!(mma_row(DType::F32).is_none());
    }

    #[test]
    fn swizzle_widths() {
        assert_eq!(swizzle_elems(Swizzle::B128, DType::Bf16), 64);
        assert_eq!(swizzle_elems(Swizzle::B64, DType::F8E4M3), 64);
        assert_eq!(swizzle_elems(Swizzle::B32, DType::F32), 8);
        assert_eq!(swizzle_row(128).unwrap().descriptor_layout, 1);
        assert!(swizzle_row(16).is_none());
    }

    #[test]
    fn tma_reductions_per_isa_table() {
        assert!(tma_reduce_dtypes(GmemReduce::Add).contains(&DType::F32));
        assert!(tma_reduce_dtypes(GmemReduce::Add).contains(&DType::Bf16));
        assert!(!tma_reduce_dtypes(GmemReduce::Add).contains(&DType::I64));
        assert!(!tma_reduce_dtypes(GmemReduce::Min).contains(&DType::F32));
        assert_eq!(tma_reduce_dtypes(GmemReduce::Inc), &[DType::U32]);
        for op in GmemReduce::ALL {
            assert!(!tma_reduce_dtypes(op).is_empty(), "{op:?} has a row");
            assert!(!tma_reduce_dtypes(op).iter().any(|d| matches!(d, DType::Tf32 | DType::Bool | DType::I8)));
        }
    }

    #[test]
    fn register_atomic_adds_per_isa() {
        assert_eq!(atomic_add_row(DType::F32).unwrap().pair.unwrap().version, (8, 1));
        assert!(!atomic_add_row(DType::Bf16).unwrap().pair.unwrap().vector);
        assert!(atomic_add_row(DType::I32).unwrap().pair.is_none());
        assert!(atomic_add_row(DType::I64).is_none() && atomic_add_row(DType::F8E4M3).is_none());
    }

    #[test]
    fn setmaxnreg_bounds() {
        assert!(max_registers_legal(240) && max_registers_legal(24) && max_registers_legal(256));
        assert!(!max_registers_legal(23) && !max_registers_legal(260) && !max_registers_legal(100));
    }
}
