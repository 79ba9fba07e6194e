//! tessel: `remote(..)` of a tile: it takes the `#[peers]` array itself, and the tile is taken of
//! the peer's copy.

use tessel::prelude::*;

#[kernel(grid = (M / 64), devices = 2)]
fn push(x: Gmem<f32, M, 64>, #[peers] buf: GmemMut<f32, M, 64>) {
    let i = program_id(0);
    let next = (device_id() + 1) % 2;
    remote(buf.tile([i, 0], [64, 64]), next).store(x.tile([i, 0], [64, 64]).load(Layout::Strided));
}

fn main() {}
