//! tessel: `.atomic_add` of a dtype `red.global.add` does not add (no signed 64-bit add).

use tessel::prelude::*;

#[kernel(grid = (M / 64))]
fn count(x: Gmem<i64, M, 64>, y: GmemMut<i64, 64, 64>) {
    let i = program_id(0);
    y.tile([0, 0], [64, 64]).atomic_add(x.tile([i, 0], [64, 64]).load(Layout::Strided));
}

fn main() {}
