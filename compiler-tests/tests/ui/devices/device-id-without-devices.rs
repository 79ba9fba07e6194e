//! tessel: `device_id()` in a kernel of one device.

use tessel::prelude::*;

#[kernel(grid = (M / 64))]
fn shard(x: Gmem<f32, S, 64>, y: GmemMut<f32, M, 64>) {
    let i = program_id(0);
    let chunk = device_id() * num_programs(0);
    y.tile([i, 0], [64, 64]).store(x.tile([chunk + i, 0], [64, 64]).load(Layout::Strided));
}

fn main() {}
