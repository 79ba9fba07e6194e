//! Kernels that accumulate into global memory, shared by the GPU tests (`gpu_atomics.rs`) and the
//! interpreter tests (`interpreter/atomics.rs`): `R` programs per tile add into the same tile of
//! `y`, with a reducing TMA store (`Reduce::Add`, also `Max` and `Xor`) or a register atomic add,
//! over any number of rows (`ragged`).
#![allow(dead_code)]

use tessel::prelude::*;

/// y[tile i] += x[tile i] * (1 + r) for r in 0..R: a reducing TMA store of the scaled tile by
/// each of the R programs of column i of the grid.
#[kernel(grid = (cdiv(M, 64), R), ragged(M))]
pub fn tma_add_rows(x: Gmem<f32, M, 64>, y: GmemMut<f32, M, 64>, R: i32) {
    let (i, r) = (program_id(0), program_id(1));
    run_scoped(|x_s: Smem<f32, 64, 64>, bar: Barrier| {
        copy_gmem_to_smem(x.tile([i, 0]), x_s, bar);
        barrier_wait(bar);
        let scale = (r + 1) as f32;
        x_s.store(x_s.load(Layout::Strided) * scale);
        commit_smem();
        copy_smem_to_gmem(x_s, y.tile([i, 0]), reduce = Reduce::Add);
        wait_smem_to_gmem(0);
    });
}

/// The same with register atomic adds of an `f32` array in `Layout::Wgmma` (pairs, `.v2.f32`),
/// over any number of rows and columns.
#[kernel(grid = (cdiv(M, 64), cdiv(N, 64), R), ragged(M, N))]
pub fn atomic_add_f32(x: Gmem<f32, M, N>, y: GmemMut<f32, M, N>, R: i32) {
    let (i, j, r) = (program_id(0), program_id(1), program_id(2));
    let scale = (r + 1) as f32;
    let v = x.tile([i, j], [64, 64]).load(Layout::Wgmma) * scale;
    y.tile([i, j], [64, 64]).atomic_add(v);
}

/// The same into a `bf16` array from a `Layout::Strided` array (one element at a time) and from
/// a `Layout::Wgmma` one (packed `.bf16x2` pairs), alternating by program.
#[kernel(grid = (cdiv(M, 64), cdiv(N, 64), R), ragged(M, N))]
pub fn atomic_add_bf16(x: Gmem<bf16, M, N>, y: GmemMut<bf16, M, N>, R: i32) {
    let (i, j, r) = (program_id(0), program_id(1), program_id(2));
    if r % 2 == 0 {
        y.tile([i, j], [64, 64]).atomic_add(x.tile([i, j], [64, 64]).load(Layout::Wgmma));
    } else {
        y.tile([i, j], [64, 64]).atomic_add(x.tile([i, j], [64, 64]).load(Layout::Strided));
    }
}

/// y[tile i] = max(y, x) and b[tile i] ^= a, by each of the R programs of column i: reducing TMA
/// stores with operations other than `Add` (a maximum is idempotent, so R maxima are one; R
/// exclusive-ors are one when R is odd, none when even).
#[kernel(grid = (cdiv(M, 64), R), ragged(M))]
pub fn tma_max_xor(x: Gmem<bf16, M, 64>, y: GmemMut<bf16, M, 64>, a: Gmem<i32, M, 64>, b: GmemMut<i32, M, 64>, R: i32) {
    let i = program_id(0);
    run_scoped(|x_s: Smem<bf16, 64, 64, Swizzle128>, a_s: Smem<i32, 64, 64>, bar: Barrier<2>| {
        copy_gmem_to_smem(x.tile([i, 0]), x_s, bar);
        copy_gmem_to_smem(a.tile([i, 0]), a_s, bar);
        barrier_wait(bar);
        copy_smem_to_gmem(x_s, y.tile([i, 0]), reduce = Reduce::Max);
        copy_smem_to_gmem(a_s, b.tile([i, 0]), reduce = Reduce::Xor);
        wait_smem_to_gmem(0);
    });
}
