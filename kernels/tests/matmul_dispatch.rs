//! The example GEMM's dispatcher (`kernels/src/matmul.rs`): which kernel a shape gets, every
//! kernel on shapes its tiles do not divide (`ragged(M, N, K)`), a split-K run through it in the
//! interpreter, and the overlapped kernel in the interpreter and (with `--ignored`) on the GPU;
//! and that the benchmark's ceiling (`kernels/src/ceiling.rs`) does all of the GEMM's wgmmas.

use crate::common;

use tessel_kernels::matmul as kernels;

use common::{assert_close, matmul, values, Rng, SKINNY};
use kernels::{choose, Variant};
use tessel::prelude::*;
use tessel_kernels::waves::{Rows, Spread};

#[test]
fn shapes_get_the_kernel_that_fills_the_gpu() {
    // Wide 128 x 256 tiles where their waves are full or nearly...
    assert_eq!(choose(8192, 8192, 8192), Variant::Wide);
    assert_eq!(choose(2048, 2048, 2048), Variant::Wide);
    // ...128 x 128 ones where those finish sooner: 64 wide tiles leave half the SMs idle, 128 of
    // these fill them...
    assert_eq!(choose(1024, 2048, 8192), Variant::Overlapped);
    // ...128 x 192 ones where those fill more SMs without another wave: 72 wide tiles, 99 of
    // these; 192 wide tiles make two waves, 264 of these two waves of 0.79 of the time (and 384
    // of 128 x 128 three of 0.54)...
    assert_eq!(choose(1152, 2048, 4096), Variant::Mid);
    assert_eq!(choose(1536, 4096, 4096), Variant::Mid);
    // ...or waste less of a last, partial column of tiles: 17 wide columns (544 tiles, 5 waves)
    // against 33 of 128 x 128 (8 waves of half the time).
    assert_eq!(choose(4096, 4224, 4096), Variant::Overlapped);
    assert_eq!(choose(4096, 4160, 4096), Variant::Overlapped);
    // Skinny: split K over the programs of 128 x 128 tiles when those fit in one wave and a row
    // of K holds 8 KiB or more, as many per tile as a model of their time says (kernels/src/waves.rs,
    // `split_ways`), where three per tile fit (not with 64 tiles: the 128 x 64 ones are faster)...
    assert_eq!(choose(128, 8192, 8192), Variant::Narrow);
    assert_eq!(choose(128, 5632, 8192), Variant::Split(3));
    // ...more where fewer tiles leave room, as shorter shares of K pay for the exchange of more
    // sums (32 tiles: 4; 16 tiles: 5 at K = 4096, 7 at 8192; 8 tiles: 7-8)...
    assert_eq!(choose(128, 4096, 4096), Variant::Split(4));
    assert_eq!(choose(128, 4096, 14336), Variant::Split(4));
    assert_eq!(choose(256, 2048, 8192), Variant::Split(4));
    assert_eq!(choose(256, 1024, 4096), Variant::Split(5));
    assert_eq!(choose(96, 1024, 8192), Variant::Split(8));
    assert_eq!(choose(128, 1024, 4096), Variant::Split(7));
    // ...and none with a shorter row of K, where the 128 x 64 tiles are faster.
    assert_eq!(choose(128, 4096, 2048), Variant::Narrow);
    // ...else the waves decide.
    assert_eq!(choose(256, 8192, 8192), Variant::Overlapped);
    // Decoding-sized M: the skinny kernels (kernels/src/waves.rs, `skinny`).
    assert_eq!(choose(1, 8192, 8192), Variant::Skinny(Rows::R16, Spread::One));
    assert_eq!(choose(48, 14336, 4096), Variant::Skinny(Rows::R64, Spread::Two));
    assert_eq!(choose(16, 2048, 8192), Variant::Skinny(Rows::R16, Spread::SplitK2));
    assert_eq!(choose(32, 1024, 4096), Variant::Skinny(Rows::R32, Spread::SplitK4));
    // Four 128-wide steps of K are too few to split four ways.
    assert_eq!(choose(32, 1024, 512), Variant::Skinny(Rows::R32, Spread::SplitK2));
    // `TESSEL_MATMUL` names every skinny kernel, and no other.
    assert_eq!(Variant::named("skinny64x2"), Some(Variant::Skinny(Rows::R64, Spread::Two)));
    assert_eq!(Variant::named(" skinny16k4 "), Some(Variant::Skinny(Rows::R16, Spread::SplitK4)));
    for stray in ["skinny", "skinny8", "skinny128", "skinny16x4", "skinny16k3", "skinny 16"] {
        assert_eq!(Variant::named(stray), None, "{stray}");
    }
    // ...and every split from 2 to 32 ways.
    assert_eq!(Variant::named("split"), Some(Variant::Split(2)));
    assert_eq!(Variant::named("split3"), Some(Variant::Split(3)));
    assert_eq!(Variant::named("split32"), Some(Variant::Split(32)));
    for stray in ["split0", "split1", "split33", "split 4", "split-2"] {
        assert_eq!(Variant::named(stray), None, "{stray}");
    }
    // A single 64-wide step of K leaves nothing to split.
    assert_eq!(choose(128, 8192, 64), Variant::Narrow);
}

#[test]
fn operands_of_the_wrong_rank_are_the_launchs_error() {
    let a = HostTensor::<bf16>::zeros([256, 128]).unwrap();
    let (flat, mut c) = (HostTensor::<bf16>::zeros([128]).unwrap(), HostTensor::<bf16>::zeros([256, 256]).unwrap());
    let err = kernels::interpret_bf16_any(&a, &flat, &mut c).unwrap_err();
    assert!(matches!(err, Error::ShapeRank { .. }), "{err}");
    let err = kernels::interpret_bf16_any(&flat, &a, &mut c).unwrap_err();
    assert!(matches!(err, Error::ShapeRank { .. }), "{err}");
    // Through the split-K kernel too, whose workspace is sized from the same shapes.
    let err = kernels::interpret_bf16_variant(Variant::Split(4), &a, &flat, &mut c).unwrap_err();
    assert!(matches!(err, Error::ShapeRank { .. }), "{err}");
}

/// Every kernel of the dispatcher, by the name `TESSEL_MATMUL` gives it (the skinny ones in
/// `SKINNY`).
const BF16_KERNELS: [&str; 9] = ["wide", "mid", "pair", "overlapped", "narrow", "split", "split3", "split4", "split8"];

#[test]
fn every_kernel_takes_shapes_its_tiles_do_not_divide() {
    let mut rng = Rng::new(304);
    // M, N and K end in partial tiles (K in an odd number of 64-wide steps, for the split's two
    // halves); then a single row and a K shorter than one step.
    for (m, n, k) in [(200, 328, 200), (1, 8, 8)] {
        let (a, b) = (rng.tensor::<bf16>(&[m, k], 1.0), rng.tensor::<bf16>(&[k, n], 1.0));
        let expect = matmul(&values(&a), &values(&b), m, n, k, true);
        for name in BF16_KERNELS.into_iter().chain(SKINNY) {
            let mut c = HostTensor::new([m, n], vec![bf16::NAN; m * n]).unwrap();
            kernels::interpret_bf16_variant(Variant::named(name).unwrap(), &a, &b, &mut c).unwrap();
            assert_close(&format!("{name} {m} x {n} x {k}"), &values(&c), &expect, 1e-2);
        }
    }
}

#[test]
fn ragged_dimensions_leave_room_for_the_last_tile() {
    // The last tile's coordinates past M must fit the kernel's 32-bit indices.
    let m = tessel::RAGGED_MAX;
    assert!(kernels::matmul::<bf16, 256, 4, 128, 1, 132>::check_args(&[m, 64], &[64, 256], &[m, 256]).is_ok());
    let err =
        kernels::matmul::<bf16, 256, 4, 128, 1, 132>::check_args(&[m + 1, 64], &[64, 256], &[m + 1, 256]).unwrap_err();
    assert!(matches!(&err, Error::Launch(text) if text.starts_with("ragged runtime dimension M")), "{err}");
}

#[test]
fn rows_tma_cannot_stride_are_refused() {
    // B's and C's rows of 100 bf16 are 200 bytes: TMA needs strides in 16-byte units.
    let a = HostTensor::<bf16>::zeros([128, 64]).unwrap();
    let (b, mut c) = (HostTensor::<bf16>::zeros([64, 100]).unwrap(), HostTensor::<bf16>::zeros([128, 100]).unwrap());
    let err = kernels::interpret_bf16_any(&a, &b, &mut c).unwrap_err();
    assert!(matches!(err, Error::Misaligned { .. }), "{err}");
}

#[test]
fn a_skinny_product_splits_k_and_matches_the_reference() {
    let mut rng = Rng::new(301);
    // One tile, and a row of K of 8 KiB: eight programs share it.
    let (m, n, k) = (100, 128, 4096);
    assert_eq!(choose(m, n, k), Variant::Split(8));
    let (a, b) = (rng.tensor::<bf16>(&[m, k], 1.0), rng.tensor::<bf16>(&[k, n], 1.0));
    let mut c = HostTensor::new([m, n], vec![bf16::NAN; m * n]).unwrap();
    kernels::interpret_bf16_any(&a, &b, &mut c).unwrap();
    // bf16 output: half an ulp of bf16 (2^-9) on top of the f32 accumulation.
    assert_close("split-K matmul", &values(&c), &matmul(&values(&a), &values(&b), m, n, k, true), 1e-2);
}

#[test]
fn k_splits_over_programs_through_global_memory() {
    let mut rng = Rng::new(306);
    // 2 x 2 tiles (the last overhanging M and N), 17 steps of K, the last one 8 wide: shares of
    // 8 and 9 steps (2 ways), 5 and 6 (3 ways), 2 and 3 (6 ways), 0 and 1 (32 ways), so that
    // programs that multiply nothing still hand on zeros; each slice of a tile gets the others'
    // sums of it one, two, five or 31 at a time (its copies' eight buffers used again and again);
    // with 32 ways, 24 programs of each tile own no slice.
    let (m, n, k) = (130, 136, 1032);
    let (a, b) = (rng.tensor::<f16>(&[m, k], 1.0), rng.tensor::<f16>(&[k, n], 1.0));
    let expect = matmul(&values(&a), &values(&b), m, n, k, true);
    for ways in [2, 3, 6, 32] {
        let mut c = HostTensor::new([m, n], vec![f16::NAN; m * n]).unwrap();
        kernels::interpret_f16_variant(Variant::Split(ways), &a, &b, &mut c).unwrap();
        assert_close(&format!("split {ways} ways"), &values(&c), &expect, 1e-2);
    }
    // A split into fewer than 2 or more than 32 programs is the launch's error.
    let mut c = HostTensor::new([m, n], vec![f16::NAN; m * n]).unwrap();
    for ways in [0, 1, 33] {
        let err = kernels::interpret_f16_variant(Variant::Split(ways), &a, &b, &mut c).unwrap_err();
        assert!(matches!(err, Error::InvalidArgument { argument: "variant", .. }), "{err}");
    }
}

// The wide kernel on a few programs, so that each takes several tiles and stores each one's
// result during the next one's first steps: a piece per step with three steps of K, both pieces
// in the one step of a short K, and the last tile's after the loop.
// (Instances of `matmul` on 3 and 2 programs.)
type WideBf16On3 = kernels::matmul<bf16, 256, 4, 128, 1, 3>;
type MidF16On2 = kernels::matmul<f16, 192, 4, 192, 1, 2>;

#[test]
fn wide_tiles_store_the_last_result_under_the_next_tiles_steps() {
    let mut rng = Rng::new(306);
    // 3 x 3 tiles over 3 programs (3 each), the last row and column overhanging; 3 steps of K,
    // then one step shorter than 64.
    for (m, n, k) in [(300, 600, 192), (300, 600, 40)] {
        let (a, b) = (rng.tensor::<bf16>(&[m, k], 1.0), rng.tensor::<bf16>(&[k, n], 1.0));
        let mut c = HostTensor::new([m, n], vec![bf16::NAN; m * n]).unwrap();
        WideBf16On3::interpret(&a, &b, &mut c).unwrap();
        let what = format!("wide bf16 {m} x {n} x {k} on 3 programs");
        assert_close(&what, &values(&c), &matmul(&values(&a), &values(&b), m, n, k, true), 1e-2);
    }
    // 2 x 3 tiles of 128 x 192 over 2 programs; one piece per tile.
    let (m, n, k) = (256, 576, 128);
    let (a, b) = (rng.tensor::<f16>(&[m, k], 1.0), rng.tensor::<f16>(&[k, n], 1.0));
    let mut c = HostTensor::new([m, n], vec![f16::NAN; m * n]).unwrap();
    MidF16On2::interpret(&a, &b, &mut c).unwrap();
    assert_close("128 x 192 f16 on 2 programs", &values(&c), &matmul(&values(&a), &values(&b), m, n, k, true), 1e-2);
}

// The overlapped kernel on a few programs, so that each takes several tiles: odd and even
// counts (the last tile's result in either half of the accumulator), one and several K steps.
type OverlappedBf16On3 = kernels::matmul_overlapped<bf16, 3>;
type OverlappedF16On2 = kernels::matmul_overlapped<f16, 2>;

#[test]
fn overlapped_tiles_take_turns_in_the_accumulator() {
    let mut rng = Rng::new(302);
    // 2 x 5 tiles over 3 programs: 4, 3 and 3 tiles; 3 steps of K.
    let (m, n, k) = (256, 640, 192);
    let (a, b) = (rng.tensor::<bf16>(&[m, k], 1.0), rng.tensor::<bf16>(&[k, n], 1.0));
    let mut c = HostTensor::new([m, n], vec![bf16::NAN; m * n]).unwrap();
    OverlappedBf16On3::interpret(&a, &b, &mut c).unwrap();
    assert_close("overlapped bf16", &values(&c), &matmul(&values(&a), &values(&b), m, n, k, true), 1e-2);
    // 3 x 1 tiles over 2 programs (2 and 1); one step of K.
    let (m, n, k) = (384, 128, 64);
    let (a, b) = (rng.tensor::<f16>(&[m, k], 1.0), rng.tensor::<f16>(&[k, n], 1.0));
    let mut c = HostTensor::new([m, n], vec![f16::NAN; m * n]).unwrap();
    OverlappedF16On2::interpret(&a, &b, &mut c).unwrap();
    assert_close("overlapped f16", &values(&c), &matmul(&values(&a), &values(&b), m, n, k, true), 1e-2);
}

#[test]
#[ignore = "needs an NVIDIA GPU"]
fn overlapped_tiles_on_the_gpu() {
    let dev = Device::new(0).expect("an sm_90 GPU");
    let mut rng = Rng::new(303);
    // 12 x 13 tiles on 132 programs: one or two each, so the last result is in either half.
    let (m, n, k) = (1536, 1664, 256);
    let (a, b) = (rng.tensor::<bf16>(&[m, k], 1.0), rng.tensor::<bf16>(&[k, n], 1.0));
    let mut c = DeviceTensor::from_host(&dev, &HostTensor::new([m, n], vec![bf16::NAN; m * n]).unwrap()).unwrap();
    let up = |t: &HostTensor<bf16>| DeviceTensor::from_host(&dev, t).unwrap();
    kernels::matmul_bf16_variant(Variant::Overlapped, &dev, &up(&a), &up(&b), &mut c).unwrap();
    let got = c.to_host().unwrap();
    assert_close("overlapped bf16 on the GPU", &values(&got), &matmul(&values(&a), &values(&b), m, n, k, true), 1e-2);
    println!("overlapped bf16 {m} x {n} x {k} on the GPU: OK");
}

#[test]
#[ignore = "needs an NVIDIA GPU"]
fn partial_tiles_on_the_gpu() {
    let dev = Device::new(0).expect("an sm_90 GPU");
    let mut rng = Rng::new(305);
    let variants = BF16_KERNELS.into_iter().chain(SKINNY).map(|name| Variant::named(name).unwrap());
    // Last tiles overhanging M, N and K in every kernel (K: 15 steps of 64, the last 40 wide, so
    // the split's halves differ by one); one row (A's box is 64 rows of a 1-row array).
    for (m, n, k) in [(1000, 1000, 1000), (1, 8, 8), (16, 2048, 4096)] {
        let (a, b) = (rng.tensor::<bf16>(&[m, k], 1.0), rng.tensor::<bf16>(&[k, n], 1.0));
        let expect = matmul(&values(&a), &values(&b), m, n, k, true);
        let up = |t: &HostTensor<bf16>| DeviceTensor::from_host(&dev, t).unwrap();
        let (da, db) = (up(&a), up(&b));
        for v in variants.clone() {
            let mut c = up(&HostTensor::new([m, n], vec![bf16::NAN; m * n]).unwrap());
            kernels::matmul_bf16_variant(v, &dev, &da, &db, &mut c).unwrap();
            let what = format!("{v:?} {m} x {n} x {k} on the GPU");
            assert_close(&what, &values(&c.to_host().unwrap()), &expect, 1e-2);
            println!("{what}: OK");
        }
    }
}

use tessel_kernels::ceiling::ceiling;

#[test]
fn the_ceiling_does_all_the_gemms_wgmmas() {
    // 2 x 3 tiles over 3 programs (2 each); 6 steps of K over the 4 loaded slices.
    let (m, n, k) = (256, 768, 384);
    let mut rng = Rng::new(307);
    let (a, b) = (rng.tensor::<bf16>(&[m, k], 1.0), rng.tensor::<bf16>(&[k, n], 1.0));
    let mut c = HostTensor::new([m, n], vec![bf16::NAN; m * n]).unwrap();
    ceiling::<bf16, 3>::interpret(&a, &b, &mut c).unwrap();
    let (a, b, c) = (&values(&a), &values(&b), &values(&c));
    // Program p's sum: step s multiplies slice s % 4 of its first tile's rows of A (tile row
    // p / 3) by the same slice of its columns of B (tile column p % 3).
    let sum = |p: usize| {
        let (rows, cols) = (128 * (p / 3), 256 * (p % 3));
        let mut sum = vec![0.0; 128 * 256];
        for step in 0..k / 64 {
            let s = 64 * (step % 4);
            let a: Vec<f64> = (0..128).flat_map(|i| (0..64).map(move |q| a[(rows + i) * k + s + q])).collect();
            let b: Vec<f64> = (0..64).flat_map(|q| (0..256).map(move |j| b[(s + q) * n + cols + j])).collect();
            for (w, v) in sum.iter_mut().zip(matmul(&a, &b, 128, 256, 64, true)) {
                *w += v;
            }
        }
        sum
    };
    let tile = |ti: usize, tj: usize| -> Vec<f64> {
        (0..128).flat_map(|i| (0..256).map(move |j| c[(128 * ti + i) * n + 256 * tj + j])).collect()
    };
    // Each program stores at its last tile (3, 4, 5: the second row); the first row stays NaN.
    for p in 0..3 {
        assert_close(&format!("ceiling of program {p}"), &tile(1, p), &sum(p), 1e-2);
        assert!(tile(0, p).iter().all(|v| v.is_nan()), "tile (0, {p}) was written");
    }
}
