//! Generic kernels through the interpreter: two instances of one kernel, named with a turbofish
//! (`gemm::<bf16, 128>::interpret`), each against a CPU reference on random non-zero data; and the
//! launch checks of each instance (`check_args`), whose static dimensions come from its values.

use crate::common;

use common::{assert_close, matmul, values, Rng};
use tessel::prelude::*;
use tessel::Element;

/// C = A @ B over `T` operands, accumulated in f32; a 64 x BN tile of C per program.
#[kernel(grid = (M / 64, N / BN), consts(BK = 64), instances((bf16, 128), (f16, 64)))]
fn gemm<T, const BN: usize>(a: Gmem<T, M, K>, b: Gmem<T, K, N>, c: GmemMut<f32, M, N>) {
    let (i, j) = (program_id(0), program_id(1));
    run_scoped(
        |acc: Acc<f32, 64, BN>, a_s: Smem<T, 64, BK, Swizzle128>, b_s: Smem<T, BK, BN, Swizzle128>, bar: Barrier<2>| {
            for k in 0..K / BK {
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

/// out = alpha * x + y, computed in f32 and rounded to `T`, over rows of exactly W columns (a
/// static dimension: the launch checks it), in W / 64 unrolled 64-column blocks.
#[kernel(grid = (M / 64), instances((bf16, 64), (f32, 128)))]
fn axpy<T, const W: usize>(x: Gmem<T, M, W>, y: Gmem<T, M, W>, out: GmemMut<T, M, W>, alpha: f32) {
    let i = program_id(0);
    #[unroll]
    for q in 0..W / 64 {
        let xs = x.tile([i, q], [64, 64]).load(Layout::Wgmma).cast::<f32>();
        let ys = y.tile([i, q], [64, 64]).load(Layout::Wgmma).cast::<f32>();
        out.tile([i, q], [64, 64]).store((xs * alpha + ys).cast::<T>());
    }
}

/// y = x (+ b where BIAS = 1), 64 x 64 tiles; rows ragged where RAGGED = 1. The instances differ
/// in their parameters (`b` is one of `add::<1, _>`'s only) and their launch checks.
#[kernel(grid = (cdiv(M, 64), N / 64), ragged(#[when(RAGGED == 1)] M), instances((0, 0), (1, 1), (1, 0)))]
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

/// A GEMM instance against the f64 reference.
fn check_gemm<T: Element>(
    name: &str,
    seed: u64,
    (m, n, k): (usize, usize, usize),
    run: impl FnOnce(&HostTensor<T>, &HostTensor<T>, &mut HostTensor<f32>) -> tessel::Result<()>,
) {
    let mut rng = Rng::new(seed);
    let (a, b) = (rng.tensor::<T>(&[m, k], 1.0), rng.tensor::<T>(&[k, n], 1.0));
    let mut c = HostTensor::new([m, n], vec![f32::NAN; m * n]).expect("shape");
    run(&a, &b, &mut c).unwrap_or_else(|e| panic!("{name}: {e}"));
    // f32 accumulation of exact products: agrees with f64 to f32's precision.
    assert_close(name, &values(&c), &matmul(&values(&a), &values(&b), m, n, k, true), 1e-5);
}

#[test]
fn two_gemm_instances_match_the_reference() {
    check_gemm::<bf16>("gemm::<bf16, 128>", 301, (128, 256, 192), gemm::<bf16, 128>::interpret);
    check_gemm::<f16>("gemm::<f16, 64>", 302, (64, 192, 128), gemm::<f16, 64>::interpret);
}

/// An axpy instance against the reference, rounded to `T` as the kernel's cast rounds.
fn check_axpy<T: Element>(
    name: &str,
    seed: u64,
    (m, w): (usize, usize),
    run: impl FnOnce(&HostTensor<T>, &HostTensor<T>, &mut HostTensor<T>, f32) -> tessel::Result<()>,
) {
    let mut rng = Rng::new(seed);
    let (x, y) = (rng.tensor::<T>(&[m, w], 2.0), rng.tensor::<T>(&[m, w], 2.0));
    let mut out = HostTensor::new([m, w], vec![T::from_f64(f64::NAN); m * w]).expect("shape");
    let alpha = -1.75f32;
    run(&x, &y, &mut out, alpha).unwrap_or_else(|e| panic!("{name}: {e}"));
    let want: Vec<f64> = values(&x)
        .iter()
        .zip(values(&y))
        .map(|(x, y)| T::from_f64(f64::from(*x as f32 * alpha + y as f32)).to_f64())
        .collect();
    assert_close(name, &values(&out), &want, 0.0);
}

#[test]
fn two_axpy_instances_match_the_reference() {
    check_axpy::<bf16>("axpy::<bf16, 64>", 303, (192, 64), axpy::<bf16, 64>::interpret);
    check_axpy::<f32>("axpy::<f32, 128>", 304, (128, 128), axpy::<f32, 128>::interpret);
}

#[test]
fn each_instance_checks_its_own_static_dimensions() {
    // W is a static dimension: 64 columns for one instance, 128 for the other.
    let plan = axpy::<bf16, 64>::check_args(&[128, 64], &[128, 64], &[128, 64], 1.0).expect("64 columns");
    assert_eq!(plan.dims, [128]);
    assert!(axpy::<f32, 128>::check_args(&[128, 128], &[128, 128], &[128, 128], 1.0).is_ok());
    let err = axpy::<f32, 128>::check_args(&[128, 64], &[128, 64], &[128, 64], 1.0).expect_err("64 is not 128");
    assert!(matches!(err, Error::ShapeMismatch { .. }), "{err}");
    // Runtime dimensions bind per call, whatever the instance.
    assert!(gemm::<f16, 64>::check_args(&[64, 128], &[128, 64], &[64, 64]).is_ok());
    assert!(gemm::<bf16, 128>::check_args(&[64, 128], &[128, 64], &[64, 64]).is_err(), "64 columns in 128-wide tiles");
}

#[test]
fn each_instance_has_its_own_items() {
    assert_eq!(gemm::<bf16, 128>::ENTRY, "gemm");
    assert_eq!(gemm::<bf16, 128>::SIGNATURE.name, "gemm");
    assert!(gemm::<bf16, 128>::PTX.contains("m64n128k16.f32.bf16.bf16"));
    assert!(gemm::<f16, 64>::PTX.contains("m64n64k16.f32.f16.f16"));
    let dtype = |s: &tessel::Signature| match s.params[0].kind {
        tessel::ParamKind::Gmem { dtype, .. } => dtype,
        tessel::ParamKind::Scalar { dtype } => dtype,
    };
    assert_eq!(dtype(&axpy::<bf16, 64>::SIGNATURE), "bf16");
    assert_eq!(dtype(&axpy::<f32, 128>::SIGNATURE), "f32");
}

#[test]
fn instances_with_their_own_parameters_and_ragged_dimensions() {
    let mut rng = Rng::new(305);
    let (m, n) = (100, 128);
    let (x, b) = (rng.tensor::<f32>(&[m, n], 1.0), rng.tensor::<f32>(&[m, n], 1.0));
    let mut y = HostTensor::new([m, n], vec![f32::NAN; m * n]).expect("shape");
    // 100 rows: only the ragged instance takes them, the last tile overhanging.
    add::<1, 1>::interpret(&x, &b, &mut y).expect("ragged rows");
    let sum: Vec<f64> = values(&x).iter().zip(values(&b)).map(|(x, b)| f64::from(*x as f32 + b as f32)).collect();
    assert_close("add::<1, 1>", &values(&y), &sum, 0.0);
    let err = add::<1, 0>::interpret(&x, &b, &mut y).expect_err("100 rows in 64-row tiles");
    assert!(matches!(err, Error::Divisibility { .. }), "{err}");
    // Without `b`: two arrays, and 128 rows.
    let (x, mut y) =
        (rng.tensor::<f32>(&[128, n], 1.0), HostTensor::new([128, n], vec![f32::NAN; 128 * n]).expect("shape"));
    add::<0, 0>::interpret(&x, &mut y).expect("whole tiles");
    assert_close("add::<0, 0>", &values(&y), &values(&x), 0.0);
    assert_eq!(add::<0, 0>::SIGNATURE.params.len(), 2);
    assert_eq!(add::<1, 0>::SIGNATURE.params.len(), 3);
}
