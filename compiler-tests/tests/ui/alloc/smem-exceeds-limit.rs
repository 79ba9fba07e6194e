//! A9: four pipeline stages of 128 x 128 bf16 for A and B need 256 KiB of shared memory, over
//! sm_90's 227 KiB.

use tessel::prelude::*;

#[kernel(grid = (M / 128, N / 128), consts(STAGES = 4))]
fn too_many_stages(a: Gmem<bf16, M, K>, b: Gmem<bf16, K, N>) {
    run_scoped(
        |a_s: Smem<bf16, STAGES, 128, 128, Swizzle128>,
         b_s: Smem<bf16, STAGES, 128, 128, Swizzle128>,
         bars: Barrier<1, STAGES>| {},
    );
}

fn main() {}
