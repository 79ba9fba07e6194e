//! tessel: `remote(..)` in a kernel of one device: there is no other device's copy to name.

use tessel::prelude::*;

#[kernel(grid = (M / 64))]
fn push(x: Gmem<f32, M, 64>, buf: GmemMut<f32, M, 64>) {
    let i = program_id(0);
    remote(buf, 1).tile([i, 0], [64, 64]).store(x.tile([i, 0], [64, 64]).load(Layout::Strided));
}

fn main() {}
