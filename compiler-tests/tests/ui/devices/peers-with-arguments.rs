//! tessel: `#[peers(..)]` with an argument: the group's size is `devices = W` of the attribute.

use tessel::prelude::*;

#[kernel(grid = (M / 64), devices = 2)]
fn copy(x: Gmem<f32, M, 64>, #[peers(2)] y: GmemMut<f32, M, 64>) {
    let i = program_id(0);
    y.tile([i, 0], [64, 64]).store(x.tile([i, 0], [64, 64]).load(Layout::Strided));
}

fn main() {}
