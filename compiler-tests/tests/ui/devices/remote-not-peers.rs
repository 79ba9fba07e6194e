//! tessel: `remote(..)` of a parameter that is not `#[peers]`: each device's `buf` is its own
//! allocation, which the others cannot address.

use tessel::prelude::*;

#[kernel(grid = (M / 64), devices = 2)]
fn push(x: Gmem<f32, M, 64>, buf: GmemMut<f32, M, 64>) {
    let i = program_id(0);
    let next = (device_id() + 1) % 2;
    remote(buf, next).tile([i, 0], [64, 64]).store(x.tile([i, 0], [64, 64]).load(Layout::Strided));
}

fn main() {}
