//! tessel: an accumulator loads in `Layout::Wgmma` only.

use tessel::prelude::*;

#[kernel(grid = (1))]
fn load_strided() {
    run_scoped(|acc: Acc<f32, 64, 64>| {
        let c = acc.load(Layout::Strided);
    });
}

fn main() {}
