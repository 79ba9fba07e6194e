//! Column reductions of WGMMA-layout arrays (axis 0 -> Layout::WgmmaCol): own elements, the eight
//! lanes g of a warp (shfl xor 4, 8, 16), then the four warps through scratch shared memory. An f32
//! sum over two 64-row tiles, an i8 sum that wraps, an i32 minimum, and a splat's sum.
// expect: shfl.sync.bfly.b32
// expect: bar.sync
// expect: bfe.s32

use tessel::prelude::*;

#[kernel(grid = (N / 16))]
fn reduce_cols(
    x: Gmem<f32, 128, N>,
    b: Gmem<i8, 64, N>,
    n: Gmem<i32, 64, N>,
    sums: GmemMut<f32, N>,
    bsums: GmemMut<i8, N>,
    mins: GmemMut<i32, N>,
    twos: GmemMut<f32, N>,
) {
    let j = program_id(0);
    let v = x.tile([0, j], [128, 16]).load(Layout::Wgmma);
    sums.tile([j], [16]).store(v.sum(0));
    let bv = b.tile([0, j], [64, 16]).load(Layout::Wgmma);
    bsums.tile([j], [16]).store(bv.sum(0));
    let nv = n.tile([0, j], [64, 16]).load(Layout::Wgmma);
    mins.tile([j], [16]).store(nv.min(0));
    twos.tile([j], [16]).store(splat::<f32>(2.0, [64, 16]).sum(0));
}

fn main() {}
