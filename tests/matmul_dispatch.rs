//! The example GEMM's dispatcher (`examples/kernels/matmul.rs`): which kernel a shape gets, the
//! divisibility it checks beyond the launch's own, a split-K run through it in the interpreter, and
//! the overlapped kernel in the interpreter and (with `--ignored`) on the GPU.

mod common;

#[path = "../examples/kernels/matmul.rs"]
#[allow(dead_code)]
#[macro_use]
mod kernels;

use common::{assert_close, matmul, values, Rng};
use kernels::{choose, whole_tiles, Variant};
use tessel::prelude::*;

#[test]
fn shapes_get_the_kernel_that_fills_the_gpu() {
    // Wide 128 x 256 tiles where their waves are full or nearly...
    assert_eq!(choose(8192, 8192, 8192), Variant::Wide);
    assert_eq!(choose(2048, 2048, 2048), Variant::Wide);
    assert_eq!(choose(1152, 2048, 4096), Variant::Wide);
    // ...128 x 128 ones where those finish sooner: 192 wide tiles make two waves, 384 of
    // 128 x 128 three of half the time; 64 wide tiles leave half the SMs idle...
    assert_eq!(choose(1536, 4096, 4096), Variant::Overlapped);
    assert_eq!(choose(1024, 2048, 8192), Variant::Overlapped);
    // ...or cover N where wide ones do not; 128 x 64 ones where only they do.
    assert_eq!(choose(4096, 4224, 4096), Variant::Overlapped);
    assert_eq!(choose(4096, 4160, 4096), Variant::Narrow);
    // Skinny: split K over 2 x 1 clusters of 128 x 128 tiles when those fit in one wave...
    assert_eq!(choose(128, 8192, 8192), Variant::Split);
    // ...else the waves decide.
    assert_eq!(choose(256, 8192, 8192), Variant::Overlapped);
    assert_eq!(choose(128, 8192, 8128), Variant::Narrow);
}

#[test]
fn operands_of_the_wrong_rank_are_the_launchs_error() {
    let a = HostTensor::<bf16>::zeros([256, 128]).unwrap();
    let (flat, mut c) = (HostTensor::<bf16>::zeros([128]).unwrap(), HostTensor::<bf16>::zeros([256, 256]).unwrap());
    let err = kernels::interpret_bf16_any(&a, &flat, &mut c).unwrap_err();
    assert!(matches!(err, Error::ShapeRank { .. }), "{err}");
    let err = kernels::interpret_bf16_any(&flat, &a, &mut c).unwrap_err();
    assert!(matches!(err, Error::ShapeRank { .. }), "{err}");
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

// The overlapped kernel on a few programs, so that each takes several tiles: odd and even
// counts (the last tile's result in either half of the accumulator), one and several K steps.
matmul_overlapped!(overlapped_bf16_3, bf16, STAGES = 6, PROGRAMS = 3);
matmul_overlapped!(overlapped_f16_2, f16, STAGES = 6, PROGRAMS = 2);

#[test]
fn overlapped_tiles_take_turns_in_the_accumulator() {
    let mut rng = Rng::new(302);
    // 2 x 5 tiles over 3 programs: 4, 3 and 3 tiles; 3 steps of K.
    let (m, n, k) = (256, 640, 192);
    let (a, b) = (rng.tensor::<bf16>(&[m, k], 1.0), rng.tensor::<bf16>(&[k, n], 1.0));
    let mut c = HostTensor::new([m, n], vec![bf16::NAN; m * n]).unwrap();
    overlapped_bf16_3::interpret(&a, &b, &mut c).unwrap();
    assert_close("overlapped bf16", &values(&c), &matmul(&values(&a), &values(&b), m, n, k, true), 1e-2);
    // 3 x 1 tiles over 2 programs (2 and 1); one step of K.
    let (m, n, k) = (384, 128, 64);
    let (a, b) = (rng.tensor::<f16>(&[m, k], 1.0), rng.tensor::<f16>(&[k, n], 1.0));
    let mut c = HostTensor::new([m, n], vec![f16::NAN; m * n]).unwrap();
    overlapped_f16_2::interpret(&a, &b, &mut c).unwrap();
    assert_close("overlapped f16", &values(&c), &matmul(&values(&a), &values(&b), m, n, k, true), 1e-2);
}

#[test]
#[ignore = "needs an NVIDIA GPU"]
fn overlapped_tiles_on_the_gpu() {
    let dev = Device::new(0).expect("an sm_90 GPU");
    let mut rng = Rng::new(303);
    // 12 x 13 tiles on 132 programs: one or two each, so the last result is in either half
    // (and N, an odd number of 128s, makes it the dispatcher's choice).
    let (m, n, k) = (1536, 1664, 256);
    assert_eq!(choose(m, n, k), Variant::Overlapped);
    let (a, b) = (rng.tensor::<bf16>(&[m, k], 1.0), rng.tensor::<bf16>(&[k, n], 1.0));
    let mut c = DeviceTensor::from_host(&dev, &HostTensor::new([m, n], vec![bf16::NAN; m * n]).unwrap()).unwrap();
    let up = |t: &HostTensor<bf16>| DeviceTensor::from_host(&dev, t).unwrap();
    kernels::matmul_bf16_any(&dev, &up(&a), &up(&b), &mut c).unwrap();
    let got = c.to_host().unwrap();
    assert_close("overlapped bf16 on the GPU", &values(&got), &matmul(&values(&a), &values(&b), m, n, k, true), 1e-2);
    println!("overlapped bf16 {m} x {n} x {k} on the GPU: OK");
}
