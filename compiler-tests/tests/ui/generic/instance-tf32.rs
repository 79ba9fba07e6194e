//! A type parameter cannot be tf32: calls name an instance by its host element type, and tf32's is
//! f32's.

use tessel::prelude::*;

#[kernel(grid = (M / 64), instances(f32, tf32))]
fn rows<T>(x: Gmem<T, M, 64>, y: GmemMut<T, M, 64>) {
    let i = program_id(0);
    y.tile([i, 0], [64, 64]).store(x.tile([i, 0], [64, 64]).load(Layout::Strided));
}

fn main() {}
