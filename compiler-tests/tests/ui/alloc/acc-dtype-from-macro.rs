//! A5 through a `macro_rules!`: the accumulator's dtype is a `$acc:ty` fragment (in an invisible
//! group), reported once, at the `i8` of the invocation; the family's i32 instance compiles.

use tessel::prelude::*;

macro_rules! int_gemm {
    ($name:ident, $t:ty, $acc:ty) => {
        #[kernel(grid = (M / 64, N / 64))]
        fn $name(a: Gmem<$t, M, K>, bt: Gmem<$t, N, K>, c: GmemMut<$acc, M, N>) {
            let (i, j) = (program_id(0), program_id(1));
            run_scoped(
                |acc: Acc<$acc, 64, 64>,
                 a_s: Smem<$t, 64, 64, Swizzle64>,
                 b_s: Smem<$t, 64, 64, Swizzle64>,
                 bar: Barrier<2>| {
                    for k in 0..K / 64 {
                        copy_gmem_to_smem(a.tile([i, k]), a_s, bar);
                        copy_gmem_to_smem(bt.tile([j, k]), b_s, bar);
                        barrier_wait(bar);
                        wgmma(acc, a_s, b_s.t());
                        wgmma_wait(0);
                    }
                    c.tile([i, j]).store(acc.load());
                },
            );
        }
    };
}

int_gemm!(gemm_i8_i32, i8, i32);
int_gemm!(gemm_i8_i8, i8, i8);

fn main() {}
