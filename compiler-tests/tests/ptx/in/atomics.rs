//! Accumulating stores into global memory: a reducing TMA store of a shared buffer into a tile
//! (`cp.reduce.async.bulk.tensor`), and register atomic adds (`red.global.add`) of f32 pairs (a
//! vector, which needs PTX ISA 8.1), bf16 pairs (packed), single f32 elements (`Strided`) and
//! single integers, over ragged dimensions (the pairs behind a branch on the row length's parity).
// expect: .version 8.1
// expect: cp.reduce.async.bulk.tensor.2d.global.shared::cta.add.tile.bulk_group
// expect: cp.reduce.async.bulk.tensor.2d.global.shared::cta.max.tile.bulk_group
// expect: cp.async.bulk.commit_group
// expect: red.global.add.v2.f32
// expect: red.global.add.f32
// expect: red.global.add.noftz.bf16x2
// expect: red.global.add.noftz.bf16
// expect: red.global.add.s32

use tessel::prelude::*;

#[kernel(grid = (cdiv(M, 64), R), ragged(M))]
fn tma_reduce(x: Gmem<f32, M, 64>, y: GmemMut<f32, M, 64>, z: GmemMut<bf16, M, 64>, R: i32) {
    let i = program_id(0);
    run_scoped(|x_s: Smem<f32, 64, 64>, z_s: Smem<bf16, 64, 64, Swizzle128>, bar: Barrier| {
        copy_gmem_to_smem(x.tile([i, 0]), x_s, bar);
        barrier_wait(bar);
        z_s.store(x_s.load(Layout::Wgmma).cast::<bf16>());
        commit_smem();
        copy_smem_to_gmem(x_s, y.tile([i, 0]), reduce = Reduce::Add);
        copy_smem_to_gmem(z_s, z.tile([i, 0]), reduce = Reduce::Max);
        wait_smem_to_gmem(0);
    });
}

#[kernel(grid = (cdiv(M, 64), cdiv(N, 64)), ragged(M, N))]
fn atomic_adds(x: Gmem<f32, M, N>, y: GmemMut<f32, M, N>, h: GmemMut<bf16, M, N>, c: GmemMut<i32, M, N>) {
    let (i, j) = (program_id(0), program_id(1));
    let v = x.tile([i, j], [64, 64]).load(Layout::Wgmma);
    y.tile([i, j], [64, 64]).atomic_add(v);
    h.tile([i, j], [64, 64]).atomic_add(v.cast::<bf16>());
    y.tile([i, j], [64, 64]).atomic_add(v.to_layout(Layout::Strided));
    c.tile([i, j], [64, 64]).atomic_add(splat::<i32>(1, [64, 64]));
}

fn main() {}
