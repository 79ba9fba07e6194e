//! tessel: `pipeline_consume` takes `cluster = true` and `delay_release = true` after its closure.

use tessel::prelude::*;

#[kernel(grid = (M / 64), warpgroups = 2, warpgroup_axis = wg)]
fn bad_option(x: Gmem<bf16, M, K>, y: GmemMut<f32, M, 64>) {
    let i = program_id(0);
    run_scoped(collective_axes = [wg], |x_s: Smem<bf16, 2, 64, 64, Swizzle128>, ring: Pipeline<2, 1, 1>| {
        if warpgroup_id() == 0 {
            pipeline_produce(ring, K / 64, |k, s, bar| copy_gmem_to_smem(x.tile([i, k]), x_s.at(s), bar));
        } else {
            pipeline_consume(ring, K / 64, |k, s| y.tile([i, 0]).store(x_s.at(s).load(Layout::Strided).cast::<f32>()), stages = 2);
        }
    });
}

fn main() {}
