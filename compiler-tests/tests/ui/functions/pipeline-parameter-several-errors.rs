//! A `Pipeline` as a kernel function's parameter, which is not supported yet.

use tessel::prelude::*;

#[kernels]
mod rings {
    use tessel::prelude::*;

    fn produce(ring: Pipeline<2, 1, 1>, a: Gmem<bf16, M, K>, a_s: Smem<bf16, 2, 64, 64, Swizzle128>, i: i32) {
        pipeline_produce(ring, K / 64, |k, s, bar| copy_gmem_to_smem(a.tile([i, k]), a_s.at(s), bar));
    }

    #[kernel(grid = (M / 64), warpgroups = 2, warpgroup_axis = wg)]
    fn rows(a: Gmem<bf16, M, K>, c: GmemMut<f32, M, 64>) {
        let i = program_id(0);
        run_scoped(collective_axes = [wg], |a_s: Smem<bf16, 2, 64, 64, Swizzle128>, ring: Pipeline<2, 1, 1>| {
            if warpgroup_id() == 0 {
                produce(ring, a, a_s, i);
            }
        });
    }
}

fn main() {}
