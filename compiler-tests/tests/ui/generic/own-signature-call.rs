//! Instances whose parameters differ (`#[when(..)]`) each have their own `launch`: a call with
//! another instance's arguments is rustc's error at the call, and so is a call of an instance the
//! kernel does not list (the kernel itself compiles).

use tessel::prelude::*;

#[kernel(grid = (M / 64, N / 64), instances(0, 1))]
fn k<const BIAS: usize>(x: Gmem<f32, M, N>, #[when(BIAS == 1)] b: Gmem<f32, M, N>, y: GmemMut<f32, M, N>) {
    let (i, j) = (program_id(0), program_id(1));
    let t = x.tile([i, j], [64, 64]).load(Layout::Strided);
    if BIAS == 1 {
        y.tile([i, j], [64, 64]).store(t + b.tile([i, j], [64, 64]).load(Layout::Strided));
    } else {
        y.tile([i, j], [64, 64]).store(t);
    }
}

fn main() -> tessel::Result<()> {
    let device = Device::new(0)?;
    let x = DeviceTensor::<f32>::zeros(&device, [64, 64])?;
    let mut y = DeviceTensor::<f32>::zeros(&device, [64, 64])?;
    k::<0>::launch(&device, &x, &x, &mut y)?;
    k::<2>::launch(&device, &x, &mut y)
}
