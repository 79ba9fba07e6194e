//! tessel: the buffers fit, but with the scratch a relayout needs the shared memory does not
//! (196608 bytes of buffer, 65536 of scratch, 1024 of alignment slack).

use tessel::prelude::*;

#[kernel(grid = (M / 64))]
fn too_much_with_scratch(x: Gmem<f32, M, 256>, y: GmemMut<f32, M, 256>) {
    let i = program_id(0);
    run_scoped(|_big: Smem<f32, 192, 256>| {
        let v = x.tile([i, 0], [64, 256]).load(Layout::Strided).to_layout(Layout::Wgmma);
        y.tile([i, 0], [64, 256]).store(v);
    });
}

fn main() {}
