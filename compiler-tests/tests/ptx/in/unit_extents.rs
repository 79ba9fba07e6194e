//! A 1 x 64 x 64 tile of a 3-D array through `Layout::Wgmma` registers (a 64 x 64 array): the
//! leading dimension's coordinate is the block index alone (offset 0 for every element), and the
//! fragment's side-by-side pairs move with `ld.global.v2` / `st.global.v2` (rows of 64).
// expect: ld.global.v2.f32
// expect: st.global.v2.f32

use tessel::prelude::*;

#[kernel(grid = (H, R / 64))]
fn unit_extents(x: Gmem<f32, H, R, 64>, y: GmemMut<f32, H, R, 64>) {
    let (h, i) = (program_id(0), program_id(1));
    let v = x.tile([h, i, 0], [1, 64, 64]).load(Layout::Wgmma);
    y.tile([h, i, 0], [1, 64, 64]).store(v * 2.0);
}

fn main() {}
