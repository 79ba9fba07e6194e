//! Global-memory semaphores: programs of one launch hand partial results to each other through a
//! workspace (`semaphore_signal` after plain global stores, `semaphore_wait` before the loads).

use tessel::prelude::*;

// C = A @ B with K split in two halves along grid axis 2, in the manner of a stream-K GEMM: the
// program of the first half stores its partial tile into the workspace and signals the tile's
// semaphore; the program of the second half (a higher-numbered program) waits, adds the partial
// tile to its own and stores C. The semaphores are a runtime-sized array, one per tile.
#[kernel(grid = (M / 64, N / 64, 2))]
fn split_k_halves(
    a: Gmem<bf16, M, K>,
    b: Gmem<bf16, K, N>,
    c: GmemMut<f32, M, N>,
    ws: GmemMut<f32, M, N>,
    sems: GmemMut<u32, T>,
) {
    let (i, j, half) = (program_id(0), program_id(1), program_id(2));
    let tile = i * num_programs(1) + j;
    run_scoped(
        |acc: Acc<f32, 64, 64>,
         a_s: Smem<bf16, 64, 64, Swizzle128>,
         b_s: Smem<bf16, 64, 64, Swizzle128>,
         bar: Barrier<2>| {
            let steps = K / 128;
            for k in half * steps..(half + 1) * steps {
                copy_gmem_to_smem(a.tile([i, k]), a_s, bar);
                copy_gmem_to_smem(b.tile([k, j]), b_s, bar);
                barrier_wait(bar);
                wgmma(acc, a_s, b_s);
                wgmma_wait(0);
            }
            if half == 0 {
                ws.tile([i, j]).store(acc.load());
                semaphore_signal(sems, tile);
            } else {
                semaphore_wait(sems, tile);
                let partial = ws.tile([i, j], [64, 64]).load(Layout::Wgmma);
                c.tile([i, j]).store(acc.load() + partial);
            }
        },
    );
}

// Running sums down a chain of programs, over a static array of semaphores with counts: both
// warpgroups of program p add 2 to semaphore p once their rows are stored, and both warpgroups of
// program p + 1 take 2 from it before they read them; the indices are `u32`.
#[kernel(grid = (8), warpgroups = 2)]
fn chain_counts(x: GmemMut<f32, 1024, 64>, sems: GmemMut<u32, 8>) {
    let p = program_id(0);
    let row = 2 * p + warpgroup_id();
    let mut v = x.tile([row, 0], [64, 64]).load(Layout::Strided);
    if p > 0 {
        semaphore_wait(sems, (p - 1) as u32, 2u32);
        v = v + x.tile([row - 2, 0], [64, 64]).load(Layout::Strided);
    }
    x.tile([row, 0]).store(v);
    if p < 7 {
        semaphore_signal(sems, p as u32, 2);
    }
}

fn main() {}
