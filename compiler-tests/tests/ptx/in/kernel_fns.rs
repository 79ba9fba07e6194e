//! Kernel functions, inlined: a tile order (scalars in, a tuple out, called from a function), and
//! an epilogue that takes an accumulator and a global array. An inlined call is a scope of its own
//! that emits nothing of itself: its arguments are bound (a literal gets a register) and its body
//! runs in place.
// expect: rem.s32
// expect: wgmma.mma_async.sync.aligned.m64n64k16.f32.bf16.bf16
// expect: st.global.v2.f32

use tessel::prelude::*;

#[kernels]
mod fns {
    use tessel::prelude::*;

    fn tile_order(u: i32, tiles_n: i32, group: i32) -> (i32, i32) {
        let span = group * tiles_n;
        (u / span * group + u % group, u % span / group)
    }

    fn my_tile(tiles_n: i32) -> (i32, i32) {
        tile_order(program_id(0), tiles_n, 2)
    }

    fn epilogue(acc: Acc<f32, 64, _>, c: GmemMut<f32, M, N>, i: i32, j: i32) {
        c.tile([i, j]).store(acc.load());
    }

    #[kernel(grid = (M / 64 * (N / 64)))]
    fn matmul(a: Gmem<bf16, M, K>, b: Gmem<bf16, K, N>, c: GmemMut<f32, M, N>) {
        let (i, j) = my_tile(N / 64);
        run_scoped(
            |acc: Acc<f32, 64, 64>,
             a_s: Smem<bf16, 64, 64, Swizzle128>,
             b_s: Smem<bf16, 64, 64, Swizzle128>,
             bar: Barrier<2>| {
                for k in 0..K / 64 {
                    copy_gmem_to_smem(a.tile([i, k]), a_s, bar);
                    copy_gmem_to_smem(b.tile([k, j]), b_s, bar);
                    barrier_wait(bar);
                    wgmma(acc, a_s, b_s);
                    wgmma_wait(0);
                }
                epilogue(acc, c, i, j);
            },
        );
    }
}

fn main() {}
