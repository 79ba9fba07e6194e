//! The fused linear layer of the examples (`kernels/src/linear.rs`): Y = act(X W^T + b) for
//! each activation, every element against an f64 reference in the interpreter (and, with
//! `--ignored` on the GPU machine, on the GPU), and the shapes it refuses.

use crate::common;

use tessel_kernels::linear as kernels;

use common::{assert_close, values, Rng, SKINNY};
use kernels::{linear, linear_overlapped, Activation, Variant};
use tessel::prelude::*;
use tessel_kernels::waves::{Rows, Spread};

/// bf16 output: half an ulp (2^-9 of a value) on top of the accumulation, and the approximate
/// `tanh`/`ex2` of GELU and SiLU (about 2^-11), relative to the largest element.
const TOLERANCE: f64 = 1e-2;

const ALL: [Activation; 4] = [Activation::None, Activation::Relu, Activation::Gelu, Activation::Silu];

/// X (M x K), W (N x K) and b (N), N(0, 1) rounded to bf16, scaled so that Z = X W^T + b is of
/// order 1 (where the activations bend).
fn inputs(m: usize, n: usize, k: usize, seed: u64) -> [HostTensor<bf16>; 3] {
    let mut rng = Rng::new(seed);
    let spread = 1.0 / (k as f64).sqrt().sqrt();
    [rng.tensor(&[m, k], spread), rng.tensor(&[n, k], spread), rng.tensor(&[n], 1.0)]
}

/// act(X W^T + b) in f64.
fn reference([x, w, b]: &[HostTensor<bf16>; 3], act: Activation) -> Vec<f64> {
    let (m, k, n) = (x.shape()[0], x.shape()[1], w.shape()[0]);
    let (x, w, b) = (values(x), values(w), values(b));
    let mut y = vec![0.0; m * n];
    for i in 0..m {
        for j in 0..n {
            let dot: f64 = (0..k).map(|p| x[i * k + p] * w[j * k + p]).sum();
            y[i * n + j] = act.apply(dot + b[j]);
        }
    }
    y
}

/// A kernel's interpretation (an instance's `interpret`).
type Interpret = fn(&HostTensor<bf16>, &HostTensor<bf16>, &HostTensor<bf16>, &mut HostTensor<bf16>) -> Result<()>;

/// Interprets `kernel` (named `name`) on `io` and checks every element against the reference.
fn interpreted(name: &str, kernel: Interpret, io: &[HostTensor<bf16>; 3], act: Activation) {
    let (m, n) = (io[0].shape()[0], io[1].shape()[0]);
    let mut y = HostTensor::new([m, n], vec![bf16::NAN; m * n]).unwrap();
    kernel(&io[0], &io[1], &io[2], &mut y).unwrap();
    let what = format!("{name} {m} x {n} x {}", io[0].shape()[1]);
    assert_close(&what, &values(&y), &reference(io, act), TOLERANCE);
}

#[test]
fn every_activation_matches_the_reference() {
    // Through the dispatcher, which picks 128 x 64 tiles for these: 2 x 8 tiles, 3 steps of K;
    // then 9 tile rows (a GROUP of 8 and one more).
    for (m, n, k, seed) in [(256, 512, 192, 1), (1152, 256, 64, 2)] {
        assert_eq!(kernels::choose(&[m, k], &[n, k]), kernels::Variant::Narrow);
        let io = inputs(m, n, k, seed);
        for act in ALL {
            let mut y = HostTensor::new([m, n], vec![bf16::NAN; m * n]).unwrap();
            kernels::interpret_linear_bf16(&io[0], &io[1], &io[2], &mut y, act).unwrap();
            assert_close(&format!("linear {act:?} {m} x {n} x {k}"), &values(&y), &reference(&io, act), TOLERANCE);
        }
    }
    // Each activation in the other tile sizes: 2 x 2 wide tiles, 2 x 4 tiles of 128 x 128.
    let io = inputs(256, 512, 128, 7);
    let wide: [Interpret; 4] = [
        linear::<bf16, 0, 256, 3>::interpret,
        linear::<bf16, 1, 256, 3>::interpret,
        linear::<bf16, 2, 256, 3>::interpret,
        linear::<bf16, 3, 256, 3>::interpret,
    ];
    let overlapped: [Interpret; 4] = [
        linear_overlapped::<bf16, 0>::interpret,
        linear_overlapped::<bf16, 1>::interpret,
        linear_overlapped::<bf16, 2>::interpret,
        linear_overlapped::<bf16, 3>::interpret,
    ];
    for ((act, wide), overlapped) in ALL.into_iter().zip(wide).zip(overlapped) {
        interpreted(&format!("linear wide {act:?}"), wide, &io, act);
        interpreted(&format!("linear overlapped {act:?}"), overlapped, &io, act);
    }
}

#[test]
fn overlapped_tiles_take_turns_in_the_accumulator() {
    // 9 x 17 tiles of 128 x 128 on 132 programs: 21 take two, so the second tile's result waits in
    // the other half and is stored under the next tile's wgmmas (or after the loop).
    let io = inputs(1152, 2176, 64, 8);
    interpreted("linear overlapped GELU", linear_overlapped::<bf16, 2>::interpret, &io, Activation::Gelu);
}

#[test]
fn shapes_get_the_tiles_whose_waves_finish_first() {
    use kernels::choose;
    assert_eq!(choose(&[8192, 4096], &[14336, 4096]), Variant::Wide);
    assert_eq!(choose(&[1536, 4096], &[4096, 4096]), Variant::Mid);
    assert_eq!(choose(&[2560, 4096], &[4096, 4096]), Variant::Overlapped);
    assert_eq!(choose(&[128, 4096], &[14336, 4096]), Variant::Overlapped);
    assert_eq!(choose(&[128, 2048], &[4096, 2048]), Variant::Narrow);
    // Few tiles and a row of K of 8 KiB or more: K split over the programs of 128 x 128 tiles,
    // as many per tile as a model of their time says (kernels/src/waves.rs, `split_ways`).
    assert_eq!(choose(&[128, 4096], &[4096, 4096]), Variant::Split(4));
    assert_eq!(choose(&[80, 14336], &[4096, 14336]), Variant::Split(4));
    assert_eq!(choose(&[128, 8192], &[2048, 8192]), Variant::Split(7));
    assert_eq!(choose(&[128, 2048], &[8192, 2048]), Variant::Narrow);
    // A last, partial column of tiles: 17 wide columns make 5 waves, 33 of 128 x 128 8 shorter ones.
    assert_eq!(choose(&[4096, 4096], &[4224, 4096]), Variant::Overlapped);
    // Decoding-sized M: the skinny kernels (kernels/src/waves.rs, `skinny`).
    assert_eq!(choose(&[1, 4096], &[14336, 4096]), Variant::Skinny(Rows::R16, Spread::Two));
    assert_eq!(choose(&[64, 14336], &[4096, 14336]), Variant::Skinny(Rows::R64, Spread::One));
    assert_eq!(choose(&[24, 4096], &[1024, 4096]), Variant::Skinny(Rows::R32, Spread::SplitK4));
}

#[test]
fn skinny_kernels_match_the_reference() {
    // M below and above one program's rows, N overhanging the last slab of W, K in 5 steps of
    // 128 (the last 112 wide), so that split shares differ; every activation through the
    // runtime `act` of one kernel; each kernel by its name, through the dispatcher.
    let io = inputs(40, 200, 624, 9);
    for name in SKINNY {
        let v = Variant::named(name).unwrap();
        for act in ALL {
            let mut y = HostTensor::new([40, 200], vec![bf16::NAN; 40 * 200]).unwrap();
            kernels::interpret_linear_bf16_variant(v, &io[0], &io[1], &io[2], &mut y, act).unwrap();
            assert_close(&format!("linear {name} {act:?}"), &values(&y), &reference(&io, act), TOLERANCE);
        }
    }
}

#[test]
fn k_splits_over_programs() {
    // 2 x 2 tiles of 128 x 128, the last overhanging M and N; 9 steps of K, the last 8 wide:
    // shares of 4 and 5 steps (2 ways), 3 (3 ways), 1 and 2 (6 ways); each activation once,
    // through the runtime `act` of one kernel.
    let (m, n, k) = (130, 136, 520);
    let io = inputs(m, n, k, 10);
    for (ways, act) in [(2, Activation::None), (3, Activation::Gelu), (6, Activation::Relu), (6, Activation::Silu)] {
        let mut y = HostTensor::new([m, n], vec![bf16::NAN; m * n]).unwrap();
        kernels::interpret_linear_bf16_variant(Variant::Split(ways), &io[0], &io[1], &io[2], &mut y, act).unwrap();
        assert_close(&format!("linear split {ways} {act:?}"), &values(&y), &reference(&io, act), TOLERANCE);
    }
}

#[test]
fn the_bias_is_per_output_column() {
    // X = 0: Y is act(b) in every row.
    let (m, n, k) = (128, 256, 64);
    let [_, w, b] = inputs(m, n, k, 3);
    let x = HostTensor::<bf16>::zeros([m, k]).unwrap();
    let mut y = HostTensor::<bf16>::zeros([m, n]).unwrap();
    kernels::interpret_linear_bf16(&x, &w, &b, &mut y, Activation::Gelu).unwrap();
    let expect: Vec<f64> = (0..m * n).map(|e| Activation::Gelu.apply(values(&b)[e % n])).collect();
    assert_close("linear GELU of the bias alone", &values(&y), &expect, TOLERANCE);
}

#[test]
fn partial_tiles_and_refusals() {
    // M, N and K that no tile size divides: the last tiles overhang X, W, b and Y.
    let inputs_ragged = inputs(200, 136, 72, 4);
    let tiles: [(&str, Interpret); 4] = [
        ("wide", linear::<bf16, 2, 256, 3>::interpret),
        ("mid", linear::<bf16, 2, 192, 4>::interpret),
        ("overlapped", linear_overlapped::<bf16, 2>::interpret),
        ("narrow", linear::<bf16, 2, 64, 8>::interpret),
    ];
    for (v, interpret) in tiles {
        let [x, w, b] = &inputs_ragged;
        let mut y = HostTensor::new([200, 136], vec![bf16::NAN; 200 * 136]).unwrap();
        interpret(x, w, b, &mut y).unwrap();
        let expect = reference(&inputs_ragged, Activation::Gelu);
        assert_close(&format!("linear GELU {v} 200 x 136 x 72"), &values(&y), &expect, TOLERANCE);
    }
    // Rows of 100 elements are not whole 16-byte units, which TMA needs.
    let [x, w, b] = inputs(128, 256, 100, 4);
    let mut y = HostTensor::<bf16>::zeros([128, 256]).unwrap();
    let err = kernels::interpret_linear_bf16(&x, &w, &b, &mut y, Activation::Relu).unwrap_err();
    assert!(matches!(err, Error::Misaligned { tensor: "x", .. }), "{err}");
    // A bias of another length than W's rows.
    let [x, w, _] = inputs(128, 256, 64, 5);
    let short = HostTensor::<bf16>::zeros([128]).unwrap();
    let err = kernels::interpret_linear_bf16(&x, &w, &short, &mut y, Activation::Relu).unwrap_err();
    assert!(matches!(err, Error::DimMismatch { .. }), "{err}");
    // An X of the wrong rank is the launch's error, not a panic.
    let err = kernels::interpret_linear_bf16(&short, &w, &x, &mut y, Activation::Relu).unwrap_err();
    assert!(matches!(err, Error::ShapeRank { .. }), "{err}");
}

#[test]
#[ignore = "needs an NVIDIA GPU"]
fn every_activation_on_the_gpu() {
    let dev = Device::new(0).expect("an sm_90 GPU");
    // 17 x 4 wide tiles on 132 programs (17 x 8 of 128 x 128: some programs take two; 17 x 16 of
    // 128 x 64: two or three); 8 steps of K. Then tiles overhanging M, N and K.
    // The skinny kernels on a decoding-sized M overhanging their rows and on one row, and the
    // split kernel on one row too (programs whose share of K is empty).
    let tiles =
        [Variant::Wide, Variant::Mid, Variant::Overlapped, Variant::Narrow, Variant::Split(4), Variant::Split(8)];
    let skinny = SKINNY.map(|name| Variant::named(name).unwrap());
    let cases = [
        ((2176, 1024, 512), &tiles[..]),
        ((1000, 1000, 1000), &tiles[..]),
        ((40, 1000, 2000), &skinny[..]),
        ((1, 8, 8), &skinny[..]),
        ((1, 8, 8), &tiles[4..]),
    ];
    for ((m, n, k), variants) in cases {
        let io = inputs(m, n, k, 6);
        let up = |t: &HostTensor<bf16>| DeviceTensor::from_host(&dev, t).unwrap();
        let (x, w, b) = (up(&io[0]), up(&io[1]), up(&io[2]));
        let expect = ALL.map(|act| reference(&io, act));
        for &v in variants {
            for (act, expect) in ALL.into_iter().zip(&expect) {
                let mut y = up(&HostTensor::new([m, n], vec![bf16::NAN; m * n]).unwrap());
                kernels::linear_bf16_variant(v, &dev, &x, &w, &b, &mut y, act).unwrap();
                let what = format!("linear {v:?} {act:?} {m} x {n} x {k} on the GPU");
                assert_close(&what, &values(&y.to_host().unwrap()), expect, TOLERANCE);
                println!("{what}: OK");
            }
        }
    }
}
