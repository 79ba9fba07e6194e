//! Bad inputs to `interpret` are errors with the GPU launch's messages, and nothing is written back.
//!
//! A tensor of the wrong element type, a read-only tensor for a `GmemMut`, too few arguments or a
//! scalar of the wrong type do not type-check against the generated `interpret`, and a
//! `HostTensor` always holds as many elements as its shape says: only what a call that compiles
//! can get wrong is tested here.

use super::support::*;
use tessel::prelude::*;

#[kernel(grid = (M / 64, N / 64))]
fn matmul(a: Gmem<bf16, M, K>, b: Gmem<bf16, K, N>, c: GmemMut<f32, M, N>) {
    let (i, j) = (program_id(0), program_id(1));
    run_scoped(
        |acc: Acc<f32, 64, 64>,
         a_s: Smem<bf16, 64, 64, Swizzle128>,
         b_s: Smem<bf16, 64, 64, Swizzle128>,
         bar: Barrier<2>| {
            for k in 0..K / 64 {
                copy_gmem_to_smem(a.tile([i, k]), a_s, bar);
                copy_gmem_to_smem(b.tile([k, j]), b_s, bar);
                barrier_wait(bar);
                wgmma(acc, a_s, b_s);
                wgmma_wait(0);
            }
            c.tile([i, j]).store(acc.load());
        },
    );
}

#[test]
fn inconsistent_runtime_dimensions() {
    let (a, b) = (randn::<bf16>(&[64, 128], 1, 1.0), randn::<bf16>(&[64, 64], 2, 1.0));
    let mut c = poisoned::<f32>(&[64, 64], f64::NAN);
    let err = matmul::interpret(&a, &b, &mut c).unwrap_err();
    assert_eq!(err, Error::DimMismatch { dim: "K", first: ("a", 1, 128), second: ("b", 0, 64) });
    assert!(values(&c).iter().all(|v| v.is_nan()));
}

#[test]
fn dimensions_tiles_do_not_cover() {
    let (a, b) = (randn::<bf16>(&[64, 96], 1, 1.0), randn::<bf16>(&[96, 64], 2, 1.0));
    let mut c = poisoned::<f32>(&[64, 64], f64::NAN);
    let err = matmul::interpret(&a, &b, &mut c).unwrap_err();
    assert_eq!(
        err.to_string(),
        "runtime dimension K = 96 must be a multiple of 64: the kernel's tiles are 64 wide along K and must cover it \
         exactly (`ragged(K)` lets the last one overhang)"
    );
}

#[test]
fn wrong_rank() {
    let (a, b) = (randn::<bf16>(&[64, 64], 1, 1.0), randn::<bf16>(&[64, 64], 2, 1.0));
    let mut c3 = poisoned::<f32>(&[64, 64, 1], f64::NAN);
    assert_eq!(
        matmul::interpret(&a, &b, &mut c3).unwrap_err().to_string(),
        "`c` must have rank 2, but its shape is [64, 64, 1] (rank 3)"
    );
}

#[test]
fn an_empty_grid_is_a_launch_error() {
    let (a, b) = (randn::<bf16>(&[0, 64], 1, 1.0), randn::<bf16>(&[64, 64], 2, 1.0));
    let mut c = poisoned::<f32>(&[0, 64], f64::NAN);
    let err = matmul::interpret(&a, &b, &mut c).unwrap_err();
    assert!(matches!(err, Error::Launch(_)), "{err}");
    assert_eq!(
        err.to_string(),
        "kernel launch failed: `matmul`: the grid's x extent `M / 64` is 0, but must be at least 1 (is a runtime \
         dimension smaller than a tile?)"
    );
}

#[kernel(grid = (1))]
fn fixed(x: Gmem<f32, 64, 32>, y: GmemMut<f32, 64, 32>, d: i32) {
    let v = x.tile([0, 0], [64, 32]).load(Layout::Strided);
    let q = 7 / d;
    y.tile([0, 0]).store(v * (q as f32));
}

#[test]
fn static_dimensions_scalars_and_division_by_zero() {
    let x = randn::<f32>(&[64, 16], 3, 1.0);
    let mut y = poisoned::<f32>(&[64, 32], f64::NAN);
    let err = fixed::interpret(&x, &mut y, 1).unwrap_err();
    assert_eq!(err, Error::ShapeMismatch { tensor: "x", expected: vec![64, 32], got: vec![64, 16] });

    let x = randn::<f32>(&[64, 32], 3, 1.0);
    let err = fixed::interpret(&x, &mut y, 0).unwrap_err();
    assert_eq!(err.to_string(), "interpreter: `fixed`, program (0, 0, 0), warpgroup 0: integer division by zero");

    fixed::interpret(&x, &mut y, 2).unwrap();
    let want: Vec<f64> = values(&x).iter().map(|v| (v * 3.0) as f32 as f64).collect();
    assert_same("y = 3 x", &values(&y), &want);
}
