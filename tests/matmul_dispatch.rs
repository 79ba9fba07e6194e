//! The example GEMM's dispatcher (`examples/kernels/matmul.rs`): which kernel a shape gets, the
//! divisibility it checks beyond the launch's own, and a split-K run through it in the interpreter.

mod common;

#[path = "../examples/kernels/matmul.rs"]
#[allow(dead_code)]
mod kernels;

use common::{assert_close, matmul, values, Rng};
use kernels::{choose, whole_tiles, Variant};
use tessel::prelude::*;

#[test]
fn shapes_get_the_kernel_that_fills_the_gpu() {
    // Wide 128 x 256 tiles whenever they occupy at least half the 132 SMs.
    assert_eq!(choose(8192, 8192, 8192), Variant::Wide);
    assert_eq!(choose(2048, 2048, 2048), Variant::Wide);
    // Skinny: split K over 2 x 1 clusters of 128 x 128 tiles when those fit in one wave...
    assert_eq!(choose(128, 8192, 8192), Variant::Split);
    // ...but not when they would take two waves, or K has an odd number of 64-wide steps.
    assert_eq!(choose(256, 8192, 8192), Variant::Narrow);
    assert_eq!(choose(128, 8192, 8128), Variant::Narrow);
}

#[test]
fn split_k_needs_an_even_number_of_k_steps() {
    let err = whole_tiles(Variant::Split, 128, 192).unwrap_err();
    assert!(matches!(err, Error::Divisibility { dim: "K", value: 192, divisor: 128, .. }), "{err}");
    assert!(whole_tiles(Variant::Narrow, 128, 192).is_ok());
    let err = whole_tiles(Variant::Pair, 128, 256).unwrap_err();
    assert!(matches!(err, Error::Divisibility { dim: "M", value: 128, divisor: 256, .. }), "{err}");
}

#[test]
fn a_skinny_product_splits_k_and_matches_the_reference() {
    let mut rng = Rng::new(301);
    let (m, n, k) = (128, 256, 512);
    assert_eq!(choose(m, n, k), Variant::Split);
    let (a, b) = (rng.tensor::<bf16>(&[m, k], 1.0), rng.tensor::<bf16>(&[k, n], 1.0));
    let mut c = HostTensor::new([m, n], vec![bf16::NAN; m * n]).unwrap();
    kernels::interpret_bf16_any(&a, &b, &mut c).unwrap();
    // bf16 output: half an ulp of bf16 (2^-9) on top of the f32 accumulation.
    assert_close("split-K matmul", &values(&c), &matmul(&values(&a), &values(&b), m, n, k, true), 1e-2);
}
