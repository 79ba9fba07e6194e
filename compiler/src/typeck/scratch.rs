//! Scratch shared memory, sized while checking: the register ops that move data between threads
//! (`to_layout` between two 2-D layouts; across warps, column reductions `x.sum(0)` and reductions
//! of row vectors and strided arrays to a scalar) go through a per-warpgroup area after the
//! program's allocations, which `ptx::scratch` addresses.
//!
//! Layout of the dynamic shared memory (`Facts::dynamic_smem_bytes`): the allocations
//! (`Facts::smem_bytes`) rounded up to 1024, then one area of `Facts::scratch_bytes` per warpgroup
//! (the largest array any such op moves, rounded up to 128), then [`SMEM_SLACK`] to round the base
//! up to 1024 at run time, so that swizzled buffers are 1024-aligned.

use super::Checker;
use crate::syntax::ast::Layout;
use crate::types::DType;

/// Extra dynamic shared memory beyond the allocations and scratch: room to align the base.
pub const SMEM_SLACK: u32 = 1024;

/// Records that an op needs `bytes` of scratch in its warpgroup.
pub(super) fn need(ck: &mut Checker, bytes: i64) {
    let bytes = u32::try_from(bytes).unwrap_or(u32::MAX);
    ck.facts.scratch_bytes = ck.facts.scratch_bytes.max(align_up(bytes, 128));
}

/// Where scratch starts: the program's allocations rounded up to 1024 bytes.
pub fn offset(smem_bytes: u64) -> u32 {
    align_up(u32::try_from(smem_bytes).unwrap_or(u32::MAX), 1024)
}

/// The dynamic shared memory a launch provides, once checking has sized everything.
pub(super) fn dynamic_smem_bytes(ck: &Checker) -> u64 {
    let warpgroups = u64::from(ck.kernel.attr.warpgroups.value);
    u64::from(offset(ck.facts.smem_bytes)) + warpgroups * u64::from(ck.facts.scratch_bytes) + u64::from(SMEM_SLACK)
}

pub fn align_up(x: u32, to: u32) -> u32 {
    x.div_ceil(to).saturating_mul(to)
}

/// Whether `to_layout` between these layouts goes through scratch: every change but the identity
/// and a splat (which every thread already holds whole).
pub fn moves_data(from: Layout, to: Layout) -> bool {
    from != to && from != Layout::Splat
}

/// Scratch of a column reduction of an [M, N] array: one partial per warp and column, in the type
/// the reduction computes in (f32 or a 32-bit integer; 64-bit integers take 8 bytes).
pub fn column_partials_bytes(dtype: DType, n: i64) -> i64 {
    4 * n * i64::from(work_bytes(dtype))
}

/// Scratch of a reduction of a row vector or a strided array to a scalar: one partial per warp.
pub fn warp_partials_bytes(dtype: DType) -> i64 {
    4 * i64::from(work_bytes(dtype))
}

pub fn work_bytes(dtype: DType) -> u32 {
    if matches!(dtype, DType::I64 | DType::U64) {
        8
    } else {
        4
    }
}
