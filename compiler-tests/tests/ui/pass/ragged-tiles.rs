//! `ragged(..)` dimensions: the last tile may overhang the array, so grids count tiles with
//! `cdiv`; loads (TMA or registers) read zeros past the end and stores drop what falls outside.

use tessel::prelude::*;

// y = x + 1 over any M x N in registers: the loads of the last blocks read 0 past the end, and
// their stores drop what falls outside.
#[kernel(grid = (cdiv(M, 64), cdiv(N, 64)), ragged(M, N))]
fn add_one(x: Gmem<f32, M, N>, y: GmemMut<f32, M, N>) {
    let (i, j) = (program_id(0), program_id(1));
    let v = x.tile([i, j], [64, 64]).load(Layout::Wgmma);
    y.tile([i, j]).store(v + 1.0);
}

// y = 2x over any M x N, through shared memory both ways: the last TMA store is clipped.
#[kernel(grid = (cdiv(M, 64), cdiv(N, 64)), ragged(M, N))]
fn double(x: Gmem<bf16, M, N>, y: GmemMut<bf16, M, N>) {
    let (i, j) = (program_id(0), program_id(1));
    run_scoped(|x_s: Smem<bf16, 64, 64>, y_s: Smem<bf16, 64, 64>, bar: Barrier| {
        copy_gmem_to_smem(x.tile([i, j]), x_s, bar);
        barrier_wait(bar);
        y_s.store(x_s.load(Layout::Strided) * 2.0);
        commit_smem();
        copy_smem_to_gmem(y_s, y.tile([i, j]));
        wait_smem_to_gmem(0);
    });
}

fn main() {}
