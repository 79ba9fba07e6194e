//! The remaining surface forms: `let` with type annotations (register arrays and scalars), dimensions
//! written as `{ expression }` over consts, an explicit `NoSwizzle`, a `Barrier<4>` that two
//! warpgroups each arrive on twice and wait on, `bool` and suffixed literals, `_` patterns, and body
//! consts used in types.

use tessel::prelude::*;

#[kernel(grid = (M / 128, N / 64), warpgroups = 2, warpgroup_axis = wg, consts(BM = 64))]
fn annotated(x: Gmem<f32, M, N>, y: GmemMut<f32, M, N>, bias: f32) {
    const HALF: usize = BM / 2;
    let (i, j) = (program_id(0), program_id(1));
    let w: i32 = warpgroup_id();
    let enabled = true;
    let _ = cluster_rank();
    run_scoped(
        collective_axes = [wg],
        |stage: Smem<f32, { BM * 2 }, 64, NoSwizzle>, ready: Barrier<4>, staged: Barrier<2>| {
            let scale: f32 = bias * 2.0f32;
            let rows: Regs<f32, 64, 64, Layout::Strided> = x.tile([2 * i + w, j], [BM, 64]).load(Layout::Strided);
            let top: Regs<f32, HALF, 64, Layout::Strided> = x.tile([4 * i + w, j], [HALF, 64]).load(Layout::Strided);
            for _ in 0..2 {
                barrier_arrive(ready);
            }
            barrier_wait(ready);
            if enabled && w == 0 {
                stage.slice([0..64, ..]).store(rows * scale);
            } else {
                stage.slice([64..96, ..]).store(top - 1.0);
            }
            commit_smem();
            // Warpgroup 1 reads the rows warpgroup 0 stored: both have stored before either reads.
            barrier_arrive(staged);
            barrier_wait(staged);
            let out = stage.slice([0..64, ..]).load(Layout::Strided);
            y.tile([2 * i + w, j], [BM, 64]).store(out);
        },
    );
}

fn main() {}
