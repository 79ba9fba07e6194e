//! Shared helpers of the GPU and interpreter tests: seeded N(0,1) data, f64 references, error checks.
//! Also included by the kernels crate's tests (`kernels/tests`).
#![allow(dead_code)]

use tessel::{DeviceGroup, Element, Error, HostTensor};

/// The skinny kernels of the example dispatchers, by the names `TESSEL_MATMUL`, `TESSEL_QMATMUL`
/// and `TESSEL_LINEAR` take: rows, then two slabs per program (`x2`) or K split 2 or 4 ways.
pub const SKINNY: [&str; 12] = [
    "skinny16",
    "skinny16x2",
    "skinny16k2",
    "skinny16k4",
    "skinny32",
    "skinny32x2",
    "skinny32k2",
    "skinny32k4",
    "skinny64",
    "skinny64x2",
    "skinny64k2",
    "skinny64k4",
];

/// xorshift64* with Box-Muller: N(0,1) samples from a fixed seed.
pub struct Rng(u64);

impl Rng {
    pub fn new(seed: u64) -> Rng {
        Rng(seed.wrapping_mul(0x9E37_79B9_7F4A_7C15) | 1)
    }

    fn uniform(&mut self) -> f64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        ((self.0.wrapping_mul(0x2545_F491_4F6C_DD1D) >> 11) as f64 + 0.5) / (1u64 << 53) as f64
    }

    pub fn normal(&mut self) -> f64 {
        let (u, v) = (self.uniform(), self.uniform());
        (-2.0 * u.ln()).sqrt() * (2.0 * std::f64::consts::PI * v).cos()
    }

    /// A tensor of N(0,1) values (scaled), rounded to `T`; never all zeros.
    pub fn tensor<T: Element>(&mut self, shape: &[usize], scale: f64) -> HostTensor<T> {
        HostTensor::from_fn(shape.to_vec(), |_| T::from_f64(self.normal() * scale)).expect("shape")
    }

    /// Small integers in [-8, 8), for integer GEMMs.
    pub fn ints<T: Element>(&mut self, shape: &[usize]) -> HostTensor<T> {
        HostTensor::from_fn(shape.to_vec(), |_| T::from_f64((self.uniform() * 16.0).floor() - 8.0)).expect("shape")
    }
}

pub fn values<T: Element>(t: &HostTensor<T>) -> Vec<f64> {
    t.data().iter().map(|v| v.to_f64()).collect()
}

/// C[m, n] = sum_k A[m, k] B(k, n), with B stored [K, N] (`b_kn`) or [N, K].
pub fn matmul(a: &[f64], b: &[f64], m: usize, n: usize, k: usize, b_kn: bool) -> Vec<f64> {
    let mut c = vec![0.0; m * n];
    for i in 0..m {
        for p in 0..k {
            let x = a[i * k + p];
            for j in 0..n {
                let y = if b_kn { b[p * n + j] } else { b[j * k + p] };
                c[i * n + j] += x * y;
            }
        }
    }
    c
}

/// Asserts max |got - want| <= tol * max |want|, and that nothing is NaN (outputs are poisoned).
pub fn assert_close(what: &str, got: &[f64], want: &[f64], tol: f64) {
    assert_eq!(got.len(), want.len(), "{what}: length");
    let scale = want.iter().fold(0.0f64, |m, v| m.max(v.abs())).max(1e-30);
    let mut worst = (0.0f64, 0usize);
    for (i, (g, w)) in got.iter().zip(want).enumerate() {
        let d = if g.is_nan() { f64::INFINITY } else { (g - w).abs() };
        if d > worst.0 {
            worst = (d, i);
        }
    }
    let rel = worst.0 / scale;
    println!("{what}: max relative error {rel:.3e} (tolerance {tol:.1e})");
    assert!(
        rel <= tol,
        "{what}: element {} is {} but should be {} (relative error {rel:.3e} > {tol:.1e})",
        worst.1,
        got[worst.1],
        want[worst.1]
    );
}

/// The first `n` GPUs as a group, or `None` where the machine has fewer, with a line saying so:
/// the GPU tests of several devices pass there, skipped, rather than fail.
pub fn gpus(n: usize) -> Option<DeviceGroup> {
    match DeviceGroup::first(n) {
        Ok(group) => Some(group),
        Err(Error::NotEnoughDevices { needed, found }) => {
            println!("SKIPPED: this test needs {needed} GPUs, the machine has {found}");
            None
        }
        Err(err) => panic!("a group of the first {n} GPUs: {err}"),
    }
}
