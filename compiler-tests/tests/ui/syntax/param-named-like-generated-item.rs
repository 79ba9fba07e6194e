//! tessel: a kernel parameter named like a constant of the kernel's generated module.

use tessel::prelude::*;

#[kernel(grid = (M / 64))]
fn copy_rows(PTX: Gmem<f32, M, 64>, y: GmemMut<f32, M, 64>) {
    let i = program_id(0);
    y.tile([i, 0], [64, 64]).store(PTX.tile([i, 0], [64, 64]).load(Layout::Strided));
}

fn main() {}
