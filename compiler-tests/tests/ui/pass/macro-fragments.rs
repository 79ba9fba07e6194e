//! Kernel families that a `macro_rules!` writes from fragments: dtypes passed as `$t:ty` (parameter
//! types, allocations, register arrays, turbofishes, `as`), constants and expressions as `$n:expr`
//! and `$e:expr` (the attribute's grid and consts, dimensions of types and shapes, a pipeline's
//! stages, loop bounds, layouts, operands). rustc hands each fragment to `#[kernel]` in an invisible
//! group, which keeps the fragment's precedence: `$scale * x` with `$scale` = `1.0 + bias` is
//! `(1.0 + bias) * x`. (`macro-generated.rs` passes literals.)

use tessel::prelude::*;

// A warp-specialized, pipelined GEMM for one operand dtype, tile width and stage count.
macro_rules! gemm {
    ($name:ident, $t:ty, $acc:ty, $bn:expr, $stages:expr, $grid:expr, $scale:expr) => {
        #[kernel(grid = $grid, warpgroups = 2, warpgroup_axis = wg, consts(BN = $bn, STAGES = $stages))]
        fn $name(a: Gmem<$t, M, K>, b: Gmem<$t, K, N>, c: GmemMut<$t, M, N>, bias: $acc) {
            let (i, j) = (program_id(0), program_id(1));
            run_scoped(
                collective_axes = [wg],
                |a_s: Smem<$t, STAGES, 64, 64, Swizzle128>,
                 b_s: Smem<$t, $stages, 64, $bn, Swizzle128>,
                 ring: Pipeline<$stages, 2, 1>| {
                    if warpgroup_id() == 0 {
                        pipeline_produce(ring, K / 64, |k, s, bar| {
                            copy_gmem_to_smem(a.tile([i, k]), a_s.at(s), bar);
                            copy_gmem_to_smem(b.tile([k, j]), b_s.at(s), bar);
                        });
                    } else {
                        run_scoped(|acc: Acc<$acc, 64, $bn>| {
                            pipeline_consume(ring, K / 64, |k, s| {
                                wgmma(acc, a_s.at(s), b_s.at(s), accumulate = k > 0);
                            });
                            let x: Regs<$acc, 64, BN, Layout::Wgmma> = acc.load();
                            let y = $scale * x + splat::<$acc>(bias, [64, $bn]);
                            c.tile([i, j]).store(y.cast::<$t>());
                        });
                    }
                },
            );
        }
    };
}

gemm!(gemm_bf16, bf16, f32, 128, 3, (M / 64, N / 128), 1.0 + bias);
gemm!(gemm_f16, f16, f32, 64, 4, (M / 64, N / BN), bias * 0.5);

// A row-wise scaling: `$rows` names a const of the attribute, `$layout` and `$e` are expressions,
// `$parts` bounds an unrolled loop whose copies slice the array. `$count as $s` converts all of
// `n + 1` (without the group it would read `n + (1 as f32)`, an i32 plus an f32, rejected).
macro_rules! scale_rows {
    ($name:ident, $t:ty, $s:ty, $rows:expr, $layout:expr, $parts:expr, $e:expr, $count:expr) => {
        #[kernel(grid = (M / $rows,), consts(ROWS = 64, COLS = 128))]
        fn $name(x: Gmem<$t, M, COLS>, y: GmemMut<$t, M, COLS>, alpha: $s, n: i32) {
            let i = program_id(0);
            let v: Regs<f32, $rows, COLS, Layout::Wgmma> =
                x.tile([i, 0], [$rows, COLS]).load($layout).cast::<f32>().to_layout(Layout::Wgmma);
            let count = $count as $s;
            let factor = $e * count;
            #[unroll]
            for q in 0..$parts {
                let part = v.slice([.., COLS / $parts * q..COLS / $parts * (q + 1)]) * factor;
                y.tile([i, q], [$rows, COLS / $parts]).store(part.cast::<$t>());
            }
        }
    };
}

scale_rows!(scale_rows_bf16, bf16, f32, ROWS, Layout::Strided, 2, alpha + 1.0, n + 1);
scale_rows!(scale_rows_f16, f16, f32, 64, Layout::Wgmma, 4, -alpha, n * 2);

fn main() {}
