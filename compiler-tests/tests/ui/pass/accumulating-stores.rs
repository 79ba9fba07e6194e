//! Accumulating stores into global memory: reducing TMA stores (every `Reduce` operation on a
//! dtype it takes) and register atomic adds of every dtype `red.global.add` adds, in several
//! layouts, over ragged dimensions.

use tessel::prelude::*;

#[kernel(grid = (cdiv(M, 64), 4), ragged(M))]
fn tma_reductions(
    x: Gmem<f32, M, 64>,
    y: GmemMut<f32, M, 64>,
    h: GmemMut<bf16, M, 64>,
    c: GmemMut<u32, M, 64>,
    b: GmemMut<i64, M, 64>,
) {
    let i = program_id(0);
    run_scoped(|x_s: Smem<f32, 64, 64>, h_s: Smem<bf16, 64, 64, Swizzle128>, c_s: Smem<u32, 64, 64>, b_s: Smem<i64, 64, 64>, bar: Barrier| {
        copy_gmem_to_smem(x.tile([i, 0]), x_s, bar);
        barrier_wait(bar);
        let v = x_s.load(Layout::Wgmma);
        h_s.store(v.cast::<bf16>());
        c_s.store(v.cast::<u32>());
        b_s.store(v.cast::<i64>());
        commit_smem();
        copy_smem_to_gmem(x_s, y.tile([i, 0]), reduce = Reduce::Add);
        copy_smem_to_gmem(h_s, h.tile([i, 0]), reduce = Reduce::Min);
        copy_smem_to_gmem(c_s, c.tile([i, 0]), reduce = Reduce::Inc);
        copy_smem_to_gmem(b_s, b.tile([i, 0]), reduce = Reduce::Xor);
        wait_smem_to_gmem(0);
        copy_smem_to_gmem(h_s, h.tile([i, 0]), reduce = Reduce::Max);
        copy_smem_to_gmem(c_s, c.tile([i, 0]), reduce = Reduce::Dec);
        copy_smem_to_gmem(b_s, b.tile([i, 0]), reduce = Reduce::And);
        copy_smem_to_gmem(b_s, b.tile([i, 0]), reduce = Reduce::Or);
        wait_smem_to_gmem(0);
    });
}

#[kernel(grid = (cdiv(M, 64), cdiv(N, 64)), ragged(M, N))]
fn atomic_adds(
    x: Gmem<f32, M, N>,
    y: GmemMut<f32, M, N>,
    h: GmemMut<f16, M, N>,
    i32s: GmemMut<i32, M, N>,
    u32s: GmemMut<u32, M, N>,
    u64s: GmemMut<u64, M, N>,
) {
    let (i, j) = (program_id(0), program_id(1));
    let v = x.tile([i, j], [64, 64]).load(Layout::Wgmma);
    y.tile([i, j], [64, 64]).atomic_add(v);
    y.tile([i, j], [64, 64]).atomic_add(v.to_layout(Layout::MmaAcc));
    h.tile([i, j], [64, 64]).atomic_add(v.cast::<f16>());
    h.tile([i, j], [64, 64]).atomic_add(splat::<f16>(1.0, [64, 64]));
    i32s.tile([i, j], [64, 64]).atomic_add(v.cast::<i32>());
    u32s.tile([i, j]).atomic_add(v.cast::<u32>());
    u64s.tile([i, j], [64, 64]).atomic_add(v.cast::<u64>().to_layout(Layout::Strided));
}

fn main() {}
