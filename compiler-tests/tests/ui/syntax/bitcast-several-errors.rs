//! tessel: a bitcast keeps the width (the help lists the dtypes of the value's width), bools have
//! no bits to reinterpret, and only register arrays and scalars have bits in registers.

use tessel::prelude::*;

#[kernel(grid = (1))]
fn reinterpret(x: Gmem<f32, 64, 64>, n: i32) {
    let v = x.tile([0, 0], [64, 64]).load(Layout::Wgmma);
    let a = v.bitcast::<bf16>();
    let b = (n > 0).bitcast::<u8>();
    let c = x.bitcast::<u32>();
    let d = (n as i4).bitcast::<u8>();
}

fn main() {}
