//! Legality tables: what the hardware accepts, as data.
//!
//! One module read by the checker (`typeck`), the PTX writer (`ptx`) and the interpreter, so that the
//! three can never disagree. Each table cites the PTX ISA section it transcribes
//! (NVIDIA PTX ISA 9.x, `docs.nvidia.com/cuda/parallel-thread-execution/#<anchor>`).

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
    fn setmaxnreg_bounds() {
        assert!(max_registers_legal(240) && max_registers_legal(24) && max_registers_legal(256));
        assert!(!max_registers_legal(23) && !max_registers_legal(260) && !max_registers_legal(100));
    }
}
