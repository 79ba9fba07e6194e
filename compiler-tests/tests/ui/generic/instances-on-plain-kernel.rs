//! `instances(..)` belongs to a generic kernel.

use tessel::prelude::*;

#[kernel(grid = (M / 64), instances(bf16))]
fn rows(x: Gmem<bf16, M, 64>, y: GmemMut<bf16, M, 64>) {
    let i = program_id(0);
    y.tile([i, 0], [64, 64]).store(x.tile([i, 0], [64, 64]).load(Layout::Strided));
}

fn main() {}
