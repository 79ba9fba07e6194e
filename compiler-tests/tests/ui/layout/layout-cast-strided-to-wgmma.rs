//! C2: `layout_cast` reinterprets registers in place, which the strided and WGMMA layouts do not
//! allow (that takes `to_layout`).

use tessel::prelude::*;

#[kernel(grid = (1))]
fn cast_strided(x: Gmem<f32, 64, 64>) {
    let v = x.tile([0, 0], [64, 64]).load(Layout::Strided);
    let w = v.layout_cast(Layout::Wgmma);
}

fn main() {}
