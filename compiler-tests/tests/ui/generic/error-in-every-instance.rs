//! An error that does not depend on the instance is reported once, naming every instance.

use tessel::prelude::*;

#[kernel(grid = (M / 64), instances(bf16, f16))]
fn rows<T>(x: Gmem<T, M, 64>, y: GmemMut<T, M, 64>) {
    let i = program_id(0);
    y.tile([i, 0], [64, 64]).store(x.tile([i, 0], [64, 64]).load(Layout::Strided) + undefined);
}

fn main() {}
