//! Shared by the interpreter tests: seeded N(0, 1) inputs, poisoned outputs, f64 references and
//! relative-error checks.

use tessel::{Element, HostTensor};

/// A tiny seeded generator (splitmix64) with Box-Muller normals: reproducible, no dependencies.
pub struct Rng(u64);

impl Rng {
    pub fn new(seed: u64) -> Self {
        Rng(seed)
    }

    fn next_u64(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^ (z >> 31)
    }

    /// Uniform in (0, 1].
    fn uniform(&mut self) -> f64 {
        ((self.next_u64() >> 11) + 1) as f64 / (1u64 << 53) as f64
    }

    /// A standard normal sample (Box-Muller).
    pub fn normal(&mut self) -> f64 {
        let (u, v) = (self.uniform(), self.uniform());
        (-2.0 * u.ln()).sqrt() * (2.0 * std::f64::consts::PI * v).cos()
    }
}

/// A tensor of N(0, 1) samples scaled by `scale`, rounded to `T`; never all zeros.
pub fn randn<T: Element>(shape: &[usize], seed: u64, scale: f64) -> HostTensor<T> {
    let mut rng = Rng::new(seed);
    HostTensor::from_fn(shape.to_vec(), |_| T::from_f64(scale * rng.normal())).unwrap()
}

/// A tensor of integers uniform in [lo, hi].
pub fn randint<T: Element>(shape: &[usize], seed: u64, lo: i64, hi: i64) -> HostTensor<T> {
    let mut rng = Rng::new(seed);
    let span = (hi - lo + 1) as u64;
    HostTensor::from_fn(shape.to_vec(), |_| T::from_f64((lo + (rng.next_u64() % span) as i64) as f64)).unwrap()
}

/// A tensor every element of which is `poison`, so that an unwritten output fails its check.
pub fn poisoned<T: Element>(shape: &[usize], poison: f64) -> HostTensor<T> {
    HostTensor::new(shape.to_vec(), vec![T::from_f64(poison); shape.iter().product()]).unwrap()
}

/// The elements as f64.
pub fn values<T: Element>(t: &HostTensor<T>) -> Vec<f64> {
    t.data().iter().map(|&x| x.to_f64()).collect()
}

/// `a [m, k] @ b [k, n]` in f64 (with `b_t`, b is given as [n, k]).
pub fn matmul_ref(a: &[f64], b: &[f64], m: usize, k: usize, n: usize, b_t: bool) -> Vec<f64> {
    let mut c = vec![0.0; m * n];
    for i in 0..m {
        for p in 0..k {
            let av = a[i * k + p];
            for j in 0..n {
                let bv = if b_t { b[j * k + p] } else { b[p * n + j] };
                c[i * n + j] += av * bv;
            }
        }
    }
    c
}

/// Asserts every element is finite and `max |got - want| <= tol * max |want|`; returns that
/// relative error.
pub fn assert_close(what: &str, got: &[f64], want: &[f64], tol: f64) -> f64 {
    assert_eq!(got.len(), want.len(), "{what}: length");
    if let Some(i) = got.iter().position(|v| !v.is_finite()) {
        panic!("{what}: element {i} is {} (unwritten or overflowed); want {}", got[i], want[i]);
    }
    let scale = want.iter().fold(0.0f64, |m, v| m.max(v.abs())).max(f64::MIN_POSITIVE);
    let (worst, at) = got.iter().zip(want).enumerate().map(|(i, (g, w))| ((g - w).abs(), i)).fold((0.0, 0), |a, b| {
        if b.0 > a.0 {
            b
        } else {
            a
        }
    });
    let rel = worst / scale;
    assert!(
        rel <= tol,
        "{what}: relative error {rel:.3e} > {tol:.1e} at element {at}: got {}, want {}",
        got[at],
        want[at]
    );
    rel
}

/// Asserts `got` equals `want` element for element, naming the first difference.
pub fn assert_same(what: &str, got: &[f64], want: &[f64]) {
    assert_eq!(got.len(), want.len(), "{what}: length");
    if let Some(i) = got.iter().zip(want).position(|(g, w)| g.to_bits() != w.to_bits() && g != w) {
        panic!("{what}: element {i} is {}, want {}", got[i], want[i]);
    }
}
