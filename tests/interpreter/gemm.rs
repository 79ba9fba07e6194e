//! GEMM kernels of every WGMMA operand class in the interpreter, against f64 references.
//!
//! Bounds: the interpreter's products are exact and its f32 accumulator is rounded once per
//! instruction K block, so an f32-accumulated result is within about `K * 2^-24` of the exact
//! product of the (rounded) inputs; we allow 1e-5 of the output's largest magnitude. An f16
//! accumulator rounds to 2^-11 per block: 1e-2. tf32 operands lose 13 mantissa bits: 5e-3 against
//! the f32 inputs, and 1e-5 against inputs truncated to tf32 first. Integer results are exact.

use super::support::*;
use std::time::Instant;
use tessel::prelude::*;
use tessel::Element;

#[kernel(grid = (M / 64, N / 64), warpgroups = 1)]
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

/// Runs a kernel `c = a @ b` (or `a @ bt^T`), given as its `interpret` applied to `a` and `b`, on a
/// poisoned `c` and returns `c` as f64.
fn run_gemm<C: Element>(c_shape: &[usize], kernel: impl FnOnce(&mut HostTensor<C>) -> Result<()>) -> Vec<f64> {
    let mut c = poisoned::<C>(c_shape, f64::NAN);
    if !C::DTYPE.starts_with('f') {
        c = poisoned::<C>(c_shape, -12345.0);
    }
    kernel(&mut c).unwrap();
    values(&c)
}

#[test]
fn bf16_gemm_matches_f64() {
    let (m, k, n) = (128, 256, 192);
    let a = randn::<bf16>(&[m, k], 1, 1.0);
    let b = randn::<bf16>(&[k, n], 2, 1.0);
    let c = run_gemm::<f32>(&[m, n], |c| matmul::interpret(&a, &b, c));
    assert_close("bf16 gemm", &c, &matmul_ref(&values(&a), &values(&b), m, k, n, false), 1e-5);
}

#[kernel(grid = (M / 64, N / 64))]
fn matmul_at(at: Gmem<bf16, K, M>, b: Gmem<bf16, K, N>, c: GmemMut<f32, M, N>) {
    let (i, j) = (program_id(0), program_id(1));
    run_scoped(
        |acc: Acc<f32, 64, 64>,
         a_s: Smem<bf16, 64, 64, Swizzle128, Transposed>,
         b_s: Smem<bf16, 64, 64, Swizzle128>,
         bar: Barrier<2>| {
            for k in 0..K / 64 {
                copy_gmem_to_smem(at.tile([k, i]), a_s, bar);
                copy_gmem_to_smem(b.tile([k, j]), b_s, bar);
                barrier_wait(bar);
                let a_r = a_s.load(Layout::Wgmma);
                wgmma(acc, a_r, b_s);
                wgmma_wait(0);
            }
            c.tile([i, j]).store(acc.load());
        },
    );
}

#[test]
fn bf16_gemm_with_a_transposed_in_smem_and_loaded_to_registers() {
    let (m, k, n) = (64, 128, 128);
    let at = randn::<bf16>(&[k, m], 3, 1.0);
    let b = randn::<bf16>(&[k, n], 4, 1.0);
    let c = run_gemm::<f32>(&[m, n], |c| matmul_at::interpret(&at, &b, c));
    // a = at^T
    let atv = values(&at);
    let a: Vec<f64> = (0..m * k).map(|x| atv[(x % k) * m + x / k]).collect();
    assert_close("bf16 gemm, A transposed", &c, &matmul_ref(&a, &values(&b), m, k, n, false), 1e-5);
}

#[kernel(grid = (M / 64, N / 64))]
fn matmul_h(a: Gmem<f16, M, K>, b: Gmem<f16, K, N>, c: GmemMut<f16, M, N>) {
    let (i, j) = (program_id(0), program_id(1));
    run_scoped(
        |acc: Acc<f16, 64, 64>,
         a_s: Smem<f16, 64, 64, Swizzle128>,
         b_s: Smem<f16, 64, 64, Swizzle128>,
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
fn f16_gemm_with_an_f16_accumulator() {
    let (m, k, n) = (128, 128, 64);
    let a = randn::<f16>(&[m, k], 5, 1.0);
    let b = randn::<f16>(&[k, n], 6, 1.0);
    let c = run_gemm::<f16>(&[m, n], |c| matmul_h::interpret(&a, &b, c));
    let want = matmul_ref(&values(&a), &values(&b), m, k, n, false);
    let rel = assert_close("f16 gemm, f16 acc", &c, &want, 1e-2);
    // Rounding to f16 must be visible: the result is not the f32 one.
    assert!(rel > 1e-5, "an f16 accumulator should lose precision (error {rel:e})");
}

#[kernel(grid = (M / 64, N / 64))]
fn matmul_tf32(a: Gmem<f32, M, K>, bt: Gmem<f32, N, K>, c: GmemMut<f32, M, N>) {
    let (i, j) = (program_id(0), program_id(1));
    run_scoped(
        |acc: Acc<f32, 64, 64>,
         a_s: Smem<tf32, 64, 32, Swizzle128>,
         b_s: Smem<tf32, 64, 32, Swizzle128>,
         bar: Barrier<2>| {
            for k in 0..K / 32 {
                copy_gmem_to_smem(a.tile([i, k]), a_s, bar);
                copy_gmem_to_smem(bt.tile([j, k]), b_s, bar);
                barrier_wait(bar);
                wgmma(acc, a_s, b_s.t());
                wgmma_wait(0);
            }
            c.tile([i, j]).store(acc.load());
        },
    );
}

#[test]
fn tf32_gemm_truncates_its_operands() {
    let (m, k, n) = (64, 128, 128);
    let a = randn::<f32>(&[m, k], 7, 1.0);
    let bt = randn::<f32>(&[n, k], 8, 1.0);
    let c = run_gemm::<f32>(&[m, n], |c| matmul_tf32::interpret(&a, &bt, c));
    let exact = matmul_ref(&values(&a), &values(&bt), m, k, n, true);
    let rel = assert_close("tf32 gemm vs f32 inputs", &c, &exact, 5e-3);
    assert!(rel > 1e-5, "tf32 operands should lose precision (error {rel:e})");
    let trunc = |v: f64| f32::from_bits((v as f32).to_bits() & !0x1fff) as f64;
    let (at, btt): (Vec<f64>, Vec<f64>) =
        (values(&a).into_iter().map(trunc).collect(), values(&bt).into_iter().map(trunc).collect());
    assert_close("tf32 gemm vs tf32 inputs", &c, &matmul_ref(&at, &btt, m, k, n, true), 1e-5);
}

#[kernel(grid = (M / 64, N / 64))]
fn matmul_fp8(a: Gmem<f8e4m3, M, K>, bt: Gmem<f8e5m2, N, K>, c: GmemMut<f32, M, N>) {
    let (i, j) = (program_id(0), program_id(1));
    run_scoped(
        |acc: Acc<f32, 64, 64>,
         a_s: Smem<f8e4m3, 64, 128, Swizzle128>,
         b_s: Smem<f8e5m2, 64, 128, Swizzle128>,
         bar: Barrier<2>| {
            for k in 0..K / 128 {
                copy_gmem_to_smem(a.tile([i, k]), a_s, bar);
                copy_gmem_to_smem(bt.tile([j, k]), b_s, bar);
                barrier_wait(bar);
                wgmma(acc, a_s, b_s.t());
                wgmma_wait(0);
            }
            c.tile([i, j]).store(acc.load());
        },
    );
}

#[test]
fn fp8_gemm_mixing_e4m3_and_e5m2() {
    let (m, k, n) = (128, 256, 64);
    let a = randn::<F8E4M3>(&[m, k], 9, 2.0);
    let bt = randn::<F8E5M2>(&[n, k], 10, 2.0);
    let c = run_gemm::<f32>(&[m, n], |c| matmul_fp8::interpret(&a, &bt, c));
    assert_close("fp8 gemm", &c, &matmul_ref(&values(&a), &values(&bt), m, k, n, true), 1e-5);
}

#[kernel(grid = (M / 64, N / 64))]
fn matmul_i8(a: Gmem<i8, M, K>, bt: Gmem<i8, N, K>, c: GmemMut<i32, M, N>) {
    let (i, j) = (program_id(0), program_id(1));
    run_scoped(
        |acc: Acc<i32, 64, 64>,
         a_s: Smem<i8, 64, 128, Swizzle128>,
         b_s: Smem<i8, 64, 128, Swizzle128>,
         bar: Barrier<2>| {
            for k in 0..K / 128 {
                copy_gmem_to_smem(a.tile([i, k]), a_s, bar);
                copy_gmem_to_smem(bt.tile([j, k]), b_s, bar);
                barrier_wait(bar);
                wgmma(acc, a_s, b_s.t());
                wgmma_wait(0);
            }
            c.tile([i, j]).store(acc.load());
        },
    );
}

#[test]
fn i8_gemm_is_exact() {
    let (m, k, n) = (64, 384, 128);
    let a = randint::<i8>(&[m, k], 11, -128, 127);
    let bt = randint::<i8>(&[n, k], 12, -128, 127);
    let c = run_gemm::<i32>(&[m, n], |c| matmul_i8::interpret(&a, &bt, c));
    assert_same("i8 gemm", &c, &matmul_ref(&values(&a), &values(&bt), m, k, n, true));
}

/// The interpreter must run a 512^3 bf16 GEMM in under 2 s (release) on a 2-core machine.
#[test]
fn bf16_gemm_512_timing() {
    let s = 512;
    let a = randn::<bf16>(&[s, s], 13, 1.0);
    let b = randn::<bf16>(&[s, s], 14, 1.0);
    let mut c = poisoned::<f32>(&[s, s], f64::NAN);
    let start = Instant::now();
    matmul::interpret(&a, &b, &mut c).unwrap();
    let elapsed = start.elapsed();
    println!("interpreter: bf16 GEMM 512x512x512 took {:.3} s", elapsed.as_secs_f64());
    let want = matmul_ref(&values(&a), &values(&b), s, s, s, false);
    assert_close("bf16 gemm 512", &values(&c), &want, 1e-5);
    if cfg!(debug_assertions) {
        println!("(debug build: the < 2 s bound is only asserted in release builds)");
    } else {
        assert!(elapsed.as_secs_f64() < 2.0, "512^3 bf16 GEMM took {elapsed:?}, over 2 s");
    }
}
