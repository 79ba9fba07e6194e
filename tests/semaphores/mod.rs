//! The semaphore kernels that `interp.rs` runs on the CPU and `gpu_ops.rs` on the GPU against it,
//! with their f64 references.
#![allow(dead_code)]

use tessel::prelude::*;

/// Running sums down a chain of programs, handed on through global memory: `sums` rows of program
/// p are the sums of the rows of `x` of programs 0..=p, in two 64-column halves, each half summing
/// the 64-column tiles of its parity (`lo` tiles 0, 2, 4.., `hi` tiles 1, 3, 5..).
///
/// Program p waits (for a count of 2) until program p - 1 has stored both halves of its sums,
/// adds them to its first tiles, then sums its other tiles: a program that did not wait would read
/// `sums` while its predecessor is still in that loop. It stores each half and signals program
/// p + 1 after each store (twice the default count of 1); the last program signals nothing, so the
/// signals and waits balance and `sems` ends as it started, at zero.
#[kernel(grid = (R / 64))]
pub fn running_sums(x: Gmem<f32, R, C>, sums: GmemMut<f32, R, 128>, sems: GmemMut<u32, S>) {
    let p = program_id(0);
    let mut lo = x.tile([p, 0], [64, 64]).load(Layout::Wgmma);
    let mut hi = x.tile([p, 1], [64, 64]).load(Layout::Wgmma);
    if p > 0 {
        semaphore_wait(sems, p - 1, 2);
        lo = lo + sums.tile([p - 1, 0], [64, 64]).load(Layout::Wgmma);
        hi = hi + sums.tile([p - 1, 1], [64, 64]).load(Layout::Wgmma);
    }
    for k in 1..C / 128 {
        lo = lo + x.tile([p, 2 * k], [64, 64]).load(Layout::Wgmma);
        hi = hi + x.tile([p, 2 * k + 1], [64, 64]).load(Layout::Wgmma);
    }
    let last = p + 1 == num_programs(0);
    sums.tile([p, 0]).store(lo);
    if !last {
        semaphore_signal(sems, p);
    }
    sums.tile([p, 1]).store(hi);
    if !last {
        semaphore_signal(sems, p);
    }
}

/// `running_sums` in f64: `x` is `rows` x `cols`, the result `rows` x 128.
pub fn running_sums_ref(x: &[f64], rows: usize, cols: usize) -> Vec<f64> {
    let mut sums = vec![0.0; rows * 128];
    for r in 0..rows {
        for c in 0..128 {
            let (half, col) = (c / 64, c % 64);
            let own: f64 = (0..cols / 128).map(|k| x[r * cols + 128 * k + 64 * half + col]).sum();
            let before = if r >= 64 { sums[(r - 64) * 128 + c] } else { 0.0 };
            sums[r * 128 + c] = before + own;
        }
    }
    sums
}

/// C = A @ B, "stream-K": the persistent warp-specialized GEMM of `kernels/src/matmul.rs`
/// (128 x 256 tiles, one producer and two consumer warpgroups) on four programs, with the tiles of
/// its last full and partial waves split over K between all programs so that none idles in the
/// last. A tile whose steps two programs share is finished by the later one: the earlier stores its
/// partial product (f32, 64 x 256 per consumer) into `partial` and signals; the later waits, starts
/// its accumulator from that partial, and stores the tile. Each program walks its share of the
/// split tiles last to first, so it hands its partial on early and waits for its predecessor's at
/// its very end: waits go to lower-numbered programs only (the interpreter starts programs in
/// order). M must be a multiple of 128, N of 256, K of 64.
///
/// On the H200 the 132-program version measured 8% slower than the plain persistent kernel at
/// 4096^3 and 8192 x 8192 x 1024 and 1% faster at 8192^3 (its partial products cost about 15 us a
/// launch; see the session notes), so the example GEMM does not use it; it stays as the test of
/// semaphores inside a warp-specialized pipeline, and of scalar schedules computed with mutable
/// names under branches.
#[kernel(grid = (PROGRAMS,), warpgroups = 3, warpgroup_axis = wg, max_registers = 168,
         consts(BM = 128, BN = 256, BK = 64, STAGES = 3, GROUP = 8, PROGRAMS = 4, SLOTS = 8, SLOT_ROWS = 512))]
pub fn stream_k_gemm(
    a: Gmem<bf16, M, K>,
    b: Gmem<bf16, K, N>,
    c: GmemMut<bf16, M, N>,
    // 64 rows per slot: slot 2p + h is program p's consumer h's partial product.
    partial: GmemMut<f32, SLOT_ROWS, BN>,
    sems: GmemMut<u32, SLOTS>,
) {
    let (tile_rows, tile_cols, steps) = (M / BM, N / BN, K / BK);
    let (p, tiles) = (program_id(0), tile_rows * tile_cols);
    // Data-parallel tiles p, p + PROGRAMS, .. below `tiles - split`; then this program's
    // share [begin, end) of the split tiles' steps: from step `from` of tile `first` to
    // step `to` of tile `last`.
    let mut split = 0;
    if tiles > PROGRAMS && tiles % PROGRAMS != 0 {
        split = PROGRAMS + tiles % PROGRAMS;
    }
    let whole = (tiles - split - p + PROGRAMS - 1) / PROGRAMS;
    let (begin, end) = (p * split * steps / PROGRAMS, (p + 1) * split * steps / PROGRAMS);
    let (first, last) = (begin / steps, (end - 1) / steps);
    let (from, to) = (begin - first * steps, end - last * steps);
    let mut items = whole;
    if split > 0 {
        items = whole + last - first + 1;
    }
    run_scoped(
        collective_axes = [wg],
        |a_s: Smem<bf16, STAGES, 2, 64, BK, Swizzle128>,
         b_s: Smem<bf16, STAGES, BK, BN, Swizzle128>,
         c_s: Smem<bf16, 2, 64, BN, Swizzle128>,
         ring: Pipeline<STAGES, 3, 2>| {
            if warpgroup_id() == 0 {
                set_max_registers(40);
                for w in 0..items {
                    // Work item `w`: steps [k0, k1) of tile `u` (in the L2-friendly order).
                    let (mut u, mut k0, mut k1) = (p + w * PROGRAMS, 0, steps);
                    if w >= whole {
                        let t = last - (w - whole);
                        u = tiles - split + t;
                        if t == first {
                            k0 = from;
                        }
                        if t == last {
                            k1 = to;
                        }
                    }
                    let band = u / (GROUP * tile_cols) * GROUP;
                    let rows = min(tile_rows - band, GROUP);
                    let (ti, tj) = (band + u % (GROUP * tile_cols) % rows, u % (GROUP * tile_cols) / rows);
                    pipeline_produce(ring, k1 - k0, |k, s, bar| {
                        copy_gmem_to_smem(a.tile([2 * ti, k0 + k]), a_s.at(s).at(0), bar);
                        copy_gmem_to_smem(a.tile([2 * ti + 1, k0 + k]), a_s.at(s).at(1), bar);
                        copy_gmem_to_smem(b.tile([k0 + k, tj]), b_s.at(s), bar);
                    });
                }
            } else {
                set_max_registers(232);
                let h = warpgroup_id() - 1;
                run_scoped(|acc: Acc<f32, 64, BN>| {
                    for w in 0..items {
                        let (mut u, mut k0, mut k1) = (p + w * PROGRAMS, 0, steps);
                        if w >= whole {
                            let t = last - (w - whole);
                            u = tiles - split + t;
                            if t == first {
                                k0 = from;
                            }
                            if t == last {
                                k1 = to;
                            }
                        }
                        let band = u / (GROUP * tile_cols) * GROUP;
                        let rows = min(tile_rows - band, GROUP);
                        let (ti, tj) = (band + u % (GROUP * tile_cols) % rows, u % (GROUP * tile_cols) / rows);
                        if k0 > 0 {
                            // The tile's first steps were the previous program's.
                            semaphore_wait(sems, 2 * (p - 1) + h);
                            acc.store(partial.tile([2 * (p - 1) + h, 0], [64, BN]).load(Layout::Wgmma));
                        }
                        pipeline_consume(ring, k1 - k0, |k, s| {
                            wgmma(acc, a_s.at(s).at(h), b_s.at(s), accumulate = k > 0 || k0 > 0);
                        });
                        if k1 < steps {
                            // The next program finishes this tile.
                            partial.tile([2 * p + h, 0], [64, BN]).store(acc.load());
                            semaphore_signal(sems, 2 * p + h);
                        } else {
                            wait_smem_to_gmem(0);
                            c_s.at(h).store(acc.load().cast::<bf16>());
                            commit_smem();
                            copy_smem_to_gmem(c_s.at(h), c.tile([2 * ti + h, tj]));
                        }
                    }
                });
            }
        },
    );
}

/// Shapes (M, N, K) for `stream_k_gemm` and the cases of its schedule they exercise.
pub const STREAM_SHAPES: [(usize, usize, usize); 4] = [
    // 9 tiles: one data-parallel wave, then 5 tiles' 4 steps shared, 5 steps per program: every
    // program but the last hands a partial on, every one but the first finishes one.
    (384, 768, 256),
    // 6 tiles: no data-parallel wave, 6 steps each; programs 1 and 3 end on a tile boundary.
    (256, 768, 256),
    // 8 tiles: two whole waves, nothing split.
    (512, 512, 128),
    // 2 tiles: fewer than the programs.
    (128, 512, 192),
];

/// The workspace `stream_k_gemm` needs: partial products and zeroed semaphores.
pub fn stream_workspace() -> (HostTensor<f32>, HostTensor<u32>) {
    (HostTensor::zeros([512, 256]).unwrap(), HostTensor::zeros([8]).unwrap())
}
