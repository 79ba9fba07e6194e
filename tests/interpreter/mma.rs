//! Warp-level `mma` kernels (register operands loaded from global tiles) in the interpreter.

use super::support::*;
use tessel::prelude::*;

#[kernel(grid = (M / 64, N / 64))]
fn mma_bf16(a: Gmem<bf16, M, K>, b: Gmem<bf16, K, N>, c: GmemMut<f32, M, N>) {
    let (i, j) = (program_id(0), program_id(1));
    let mut acc = splat::<f32>(0.0, [64, 64]).to_layout(Layout::MmaAcc);
    for k in 0..K / 32 {
        let a_r = a.tile([i, k], [64, 32]).load(Layout::MmaLhs);
        let b_r = b.tile([k, j], [32, 64]).load(Layout::MmaRhs);
        acc = mma(acc, a_r, b_r);
    }
    c.tile([i, j]).store(acc);
}

#[test]
fn bf16_mma_matches_f64() {
    let (m, k, n) = (128, 96, 64);
    let a = randn::<bf16>(&[m, k], 31, 1.0);
    let b = randn::<bf16>(&[k, n], 32, 1.0);
    let mut c = poisoned::<f32>(&[m, n], f64::NAN);
    mma_bf16::interpret(&a, &b, &mut c).unwrap();
    assert_close("bf16 mma", &values(&c), &matmul_ref(&values(&a), &values(&b), m, k, n, false), 1e-5);
}

/// 32 rows (two warps along M), i8 operands cast to i4 in registers, i32 accumulation.
#[kernel(grid = (M / 32, N / 64))]
fn mma_i4(a: Gmem<i8, M, K>, b: Gmem<i8, K, N>, c: GmemMut<i32, M, N>) {
    let (i, j) = (program_id(0), program_id(1));
    let mut acc = splat::<i32>(0, [32, 64]).to_layout(Layout::MmaAcc);
    for k in 0..K / 64 {
        let a_r = a.tile([i, k], [32, 64]).load(Layout::MmaLhs).cast::<i4>();
        let b_r = b.tile([k, j], [64, 64]).load(Layout::MmaRhs).cast::<i4>();
        acc = mma(acc, a_r, b_r);
    }
    c.tile([i, j]).store(acc);
}

#[test]
fn i4_mma_is_exact() {
    let (m, k, n) = (64, 128, 128);
    let a = randint::<i8>(&[m, k], 33, -8, 7);
    let b = randint::<i8>(&[k, n], 34, -8, 7);
    let mut c = poisoned::<i32>(&[m, n], -7.0);
    mma_i4::interpret(&a, &b, &mut c).unwrap();
    assert_same("c", &values(&c), &matmul_ref(&values(&a), &values(&b), m, k, n, false));
}

/// Casting i8 values outside i4's range wraps them, as the hardware's 4-bit operands would.
#[test]
fn i4_casts_wrap() {
    let (m, k, n) = (32, 64, 64);
    let a = randint::<i8>(&[m, k], 35, -100, 100);
    let b = randint::<i8>(&[k, n], 36, -8, 7);
    let mut c = poisoned::<i32>(&[m, n], -7.0);
    mma_i4::interpret(&a, &b, &mut c).unwrap();
    let wrap4 = |v: f64| (((v as i64) << 60) >> 60) as f64;
    let a4: Vec<f64> = values(&a).into_iter().map(wrap4).collect();
    assert_same("c", &values(&c), &matmul_ref(&a4, &values(&b), m, k, n, false));
}
