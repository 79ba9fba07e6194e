//! `#[when(..)]` on a parameter and on a `ragged(..)` dimension: the instances of one generic
//! kernel differ in their parameters and raggedness, and each is called with its own. A condition
//! such as `BIAS == 0 || i > 7` is known where its first operand decides it, as Rust evaluates
//! `||`, so that the instance without `b` never reads the branch that names it.

use tessel::prelude::*;

#[kernel(grid = (cdiv(M, 64), N / 64), ragged(#[when(RAGGED == 1)] M), instances((0, 0), (1, 1)))]
fn add<const BIAS: usize, const RAGGED: usize>(
    x: Gmem<f32, M, N>,
    #[when(BIAS == 1)] b: Gmem<f32, M, N>,
    y: GmemMut<f32, M, N>,
) {
    let (i, j) = (program_id(0), program_id(1));
    let t = x.tile([i, j], [64, 64]).load(Layout::Strided);
    if BIAS == 1 {
        y.tile([i, j], [64, 64]).store(t + b.tile([i, j], [64, 64]).load(Layout::Strided));
    } else {
        y.tile([i, j], [64, 64]).store(t);
    }
}

// Rows past 512 skip the bias (none here); `add_early` without a bias never reads the `else`.
#[kernel(grid = (cdiv(M, 64), N / 64), ragged(M), instances(0, 1))]
fn add_early<const BIAS: usize>(x: Gmem<f32, M, N>, #[when(BIAS == 1)] b: Gmem<f32, M, N>, y: GmemMut<f32, M, N>) {
    let (i, j) = (program_id(0), program_id(1));
    let t = x.tile([i, j], [64, 64]).load(Layout::Strided);
    if BIAS == 0 || i > 7 {
        y.tile([i, j], [64, 64]).store(t);
    } else {
        y.tile([i, j], [64, 64]).store(t + b.tile([i, j], [64, 64]).load(Layout::Strided));
    }
}

fn main() -> tessel::Result<()> {
    // 100 rows: ragged in the instance `add::<1, 1>` only.
    let x = HostTensor::<f32>::zeros([100, 64])?;
    let mut y = HostTensor::<f32>::zeros([100, 64])?;
    add::<1, 1>::interpret(&x, &x, &mut y)?;
    assert!(add::<0, 0>::interpret(&x, &mut y).is_err());
    let x = HostTensor::<f32>::zeros([128, 64])?;
    let mut y = HostTensor::<f32>::zeros([128, 64])?;
    add::<0, 0>::interpret(&x, &mut y)?;
    let x = HostTensor::<f32>::new([100, 64], (0..6400).map(|v| v as f32).collect())?;
    let mut y = HostTensor::<f32>::zeros([100, 64])?;
    add_early::<1>::interpret(&x, &x, &mut y)?;
    assert_eq!(y.data()[6399], 2.0 * 6399.0);
    add_early::<0>::interpret(&x, &mut y)?;
    assert_eq!(y.data()[6399], 6399.0);
    Ok(())
}
