//! Reductions of 1-D arrays to a scalar: a row vector's sum (the lanes that hold other rows, shfl
//! xor 4, 8, 16, then the four warps' partials through scratch), a column vector's maximum (lanes
//! xor 1, 2: every warp holds every column), a strided array of 200 i32 whose last element per
//! thread exists only below thread 72 (the others take the identity, `selp`), and a splat's sum
//! (one multiplication). Each scalar is then broadcast into a stored row.
// expect: 16, 31, -1
// expect: to a scalar
// expect: selp.b32
// expect: 0x7FFFFFFF
// expect: bar.sync

use tessel::prelude::*;

#[kernel(grid = (M / 64))]
fn reduce_scalar(x: Gmem<f32, M, 64>, n: Gmem<i32, 200>, y: GmemMut<f32, M, 64>) {
    let i = program_id(0);
    let v = x.tile([i, 0], [64, 64]).load(Layout::Wgmma);
    let total = v.sum(1).sum(0);
    let top = v.max(0).max(0);
    let low = n.tile([0], [200]).load(Layout::Strided).min(0);
    let quarters = splat::<f32>(0.25, [64]).sum(0);
    y.tile([i, 0], [64, 64]).store(v * total + top - low.cast::<f32>() * quarters);
}

fn main() {}
