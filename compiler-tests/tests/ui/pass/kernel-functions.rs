//! Kernel functions: a `#[kernels]` module whose kernels share a tile order (scalars in, a tuple
//! out; a function that calls another), a producer step that takes global arrays, stage views and
//! the stage's barrier from `pipeline_produce`'s closure, an epilogue that stores an accumulator
//! through a shared buffer, and a function with its own const and unrolled loop that returns a
//! register array. Extents left open (`_`) take each call's.

use tessel::prelude::*;

#[kernels]
mod gemm {
    use tessel::prelude::*;

    /// The tile (row, column) of step `u` over `tiles_m x tiles_n` tiles, `group` tile-rows at a
    /// time down each column, so that the tiles running together share panels of A and B in L2.
    fn tile_order(u: i32, tiles_m: i32, tiles_n: i32, group: i32) -> (i32, i32) {
        let span = group * tiles_n;
        let first = u / span * group;
        let rows = min(tiles_m - first, group);
        (first + u % span % rows, u % span / rows)
    }

    /// The tile this program takes at step `t` of its persistent loop.
    fn program_tile(t: i32, tiles_m: i32, tiles_n: i32) -> (i32, i32) {
        tile_order(program_id(0) + t * num_programs(0), tiles_m, tiles_n, 8)
    }

    /// The tiles this program takes: every `num_programs(0)`-th of `tiles`.
    fn my_tiles(tiles: i32) -> i32 {
        (tiles - program_id(0) + num_programs(0) - 1) / num_programs(0)
    }

    /// Fills one stage: the two 64-row halves of A's 128 x 64 tile and B's 64 x N tile, by TMA,
    /// each copy one arrival on the stage's barrier.
    fn load_stage(
        a: Gmem<f16, M, K>,
        b: Gmem<f16, K, N>,
        a_s: Smem<f16, 2, 64, 64, Swizzle128>,
        b_s: Smem<f16, 64, _, Swizzle128>,
        bar: Barrier<3>,
        ti: i32,
        tj: i32,
        k: i32,
    ) {
        copy_gmem_to_smem(a.tile([2 * ti, k]), a_s.at(0), bar);
        copy_gmem_to_smem(a.tile([2 * ti + 1, k]), a_s.at(1), bar);
        copy_gmem_to_smem(b.tile([k, tj]), b_s, bar);
    }

    /// Stores a warpgroup's accumulator, converted, through `c_s` with a TMA store.
    fn epilogue(acc: Acc<f32, 64, _>, c_s: Smem<f16, 64, _, Swizzle128>, c: GmemMut<f16, M, N>, i: i32, j: i32) {
        wait_smem_to_gmem(0);
        c_s.store(acc.load().cast::<f16>());
        commit_smem();
        copy_smem_to_gmem(c_s, c.tile([i, j]));
    }

    #[kernel(grid = (8,), warpgroups = 3, warpgroup_axis = wg, consts(STAGES = 4))]
    pub fn gemm_persistent(a: Gmem<f16, M, K>, b: Gmem<f16, K, N>, c: GmemMut<f16, M, N>) {
        let (tiles_m, tiles_n) = (M / 128, N / 128);
        run_scoped(
            collective_axes = [wg],
            |a_s: Smem<f16, STAGES, 2, 64, 64, Swizzle128>,
             b_s: Smem<f16, STAGES, 64, 128, Swizzle128>,
             c_s: Smem<f16, 2, 64, 128, Swizzle128>,
             ring: Pipeline<STAGES, 3, 2>| {
                if warpgroup_id() == 0 {
                    for t in 0..my_tiles(tiles_m * tiles_n) {
                        let (ti, tj) = program_tile(t, tiles_m, tiles_n);
                        pipeline_produce(ring, K / 64, |k, s, bar| {
                            load_stage(a, b, a_s.at(s), b_s.at(s), bar, ti, tj, k);
                        });
                    }
                } else {
                    let h = warpgroup_id() - 1;
                    run_scoped(|acc: Acc<f32, 64, 128>| {
                        for t in 0..my_tiles(tiles_m * tiles_n) {
                            let (ti, tj) = program_tile(t, tiles_m, tiles_n);
                            pipeline_consume(ring, K / 64, |k, s| {
                                wgmma(acc, a_s.at(s).at(h), b_s.at(s), accumulate = k > 0);
                            });
                            epilogue(acc, c_s.at(h), c, 2 * ti + h, tj);
                        }
                    });
                }
            },
        );
    }

    /// `x` scaled by `s` and passed through `1 + x / 4` four times (the function's const and
    /// unrolled loop), as a register array of any width.
    fn smooth(x: Regs<f32, 64, _, Layout::Wgmma>, s: f32) -> Regs<f32, 64, 64, Layout::Wgmma> {
        const ROUNDS: i32 = 4;
        let mut y = x * s;
        #[unroll]
        for _r in 0..ROUNDS {
            y = y * 0.25 + 1.0;
        }
        y
    }

    #[kernel(grid = (M / 64 * (N / 64)))]
    pub fn smooth_tiles(x: Gmem<f32, M, N>, y: GmemMut<f32, M, N>, s: f32) {
        let (i, j) = tile_order(program_id(0), M / 64, N / 64, 4);
        y.tile([i, j], [64, 64]).store(smooth(x.tile([i, j], [64, 64]).load(Layout::Wgmma), s));
    }
}

fn main() {}
