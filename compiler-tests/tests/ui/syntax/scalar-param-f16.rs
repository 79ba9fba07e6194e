//! A scalar parameter is one of the types the kernel ABI passes by value (f32, i32, u32, i64,
//! u64): an f16 one is taken as f32 and converted in the kernel. Its uses report nothing more.

use tessel::prelude::*;

#[kernel(grid = (N / 128))]
fn scale(x: Gmem<f16, N>, y: GmemMut<f16, N>, alpha: f16) {
    let i = program_id(0);
    y.tile([i], [128]).store(x.tile([i], [128]).load(Layout::Strided) * alpha);
}

fn main() {}
