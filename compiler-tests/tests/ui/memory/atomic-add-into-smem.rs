//! tessel: `.atomic_add` into a shared buffer, which only global tiles take.

use tessel::prelude::*;

#[kernel(grid = (1))]
fn add_shared(x: Gmem<f32, 64, 64>) {
    run_scoped(|y_s: Smem<f32, 64, 64>| {
        y_s.atomic_add(x.tile([0, 0], [64, 64]).load(Layout::Strided));
    });
}

fn main() {}
