//! Rounding to integral values: `floor`, `ceil`, `round` (ties to even) and `trunc` are one `cvt`
//! each with the rounding modifier `.rmi`, `.rpi`, `.rni`, `.rzi` (a bf16 through f32).
// expect: cvt.rmi.f32.f32
// expect: cvt.rpi.f32.f32
// expect: cvt.rni.f32.f32
// expect: cvt.rzi.f32.f32

use tessel::prelude::*;

#[kernel(grid = (N / 128))]
fn rounding(x: Gmem<f32, N>, y: GmemMut<f32, N>, h: GmemMut<bf16, N>) {
    let i = program_id(0);
    let v = x.tile([i], [128]).load(Layout::Strided);
    y.tile([i], [128]).store(floor(v) + ceil(v) + round(v) + trunc(v));
    h.tile([i], [128]).store(round(v.cast::<bf16>()));
}

fn main() {}
