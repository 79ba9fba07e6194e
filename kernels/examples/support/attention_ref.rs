//! Inputs and the f64 reference for the attention example and benchmark.

use tessel::{Element, HostTensor, Result};

/// `count` deterministic N(0,1) values (xorshift + Box-Muller), rounded to `T`.
pub fn randn<T: Element>(count: usize, seed: u64) -> Vec<T> {
    let mut s = seed | 1;
    let mut uniform = move || {
        s ^= s << 13;
        s ^= s >> 7;
        s ^= s << 17;
        ((s >> 11) as f64 + 0.5) / (1u64 << 53) as f64
    };
    (0..count)
        .map(|_| {
            let (u, v) = (uniform(), uniform());
            T::from_f64((-2.0 * u.ln()).sqrt() * (2.0 * std::f64::consts::PI * v).cos())
        })
        .collect()
}

/// Q, K and V: H x S x D, H x T x D, H x T x D, from fixed seeds.
pub fn inputs<T: Element>(heads: usize, s: usize, t: usize, d: usize) -> Result<[HostTensor<T>; 3]> {
    inputs_gqa(heads, heads, s, t, d)
}

/// Q, K and V for grouped-query attention: H x S x D, HK x T x D, HK x T x D, from fixed seeds.
pub fn inputs_gqa<T: Element>(
    heads: usize,
    kv_heads: usize,
    s: usize,
    t: usize,
    d: usize,
) -> Result<[HostTensor<T>; 3]> {
    Ok([
        HostTensor::new([heads, s, d], randn(heads * s * d, 1))?,
        HostTensor::new([kv_heads, t, d], randn(kv_heads * t * d, 2))?,
        HostTensor::new([kv_heads, t, d], randn(kv_heads * t * d, 3))?,
    ])
}

/// Row `r` of query head `h`, in f64: the scores `scale q_r . k_j` over the keys it sees (0 ..= r
/// with `causal`), and V's rows; query head h reads K/V head h / (H / HK).
fn scores<T: Element>(qkv: &[HostTensor<T>; 3], h: usize, r: usize, scale: f64, causal: bool) -> Vec<f64> {
    let [q, k, _] = qkv;
    let (s, t, d) = (q.shape()[1], k.shape()[1], q.shape()[2]);
    let kh = h / (q.shape()[0] / k.shape()[0]);
    let seen = if causal { r + 1 } else { t };
    let at =
        |x: &HostTensor<T>, head: usize, rows: usize, i: usize, j: usize| x.data()[(head * rows + i) * d + j].to_f64();
    (0..seen).map(|j| scale * (0..d).map(|c| at(q, h, s, r, c) * at(k, kh, t, j, c)).sum::<f64>()).collect()
}

/// Row `r` of head `h` of softmax(scale Q K^T) V, in f64; `causal`: over keys 0 ..= r only.
fn reference_row<T: Element>(qkv: &[HostTensor<T>; 3], h: usize, r: usize, scale: f64, causal: bool) -> Vec<f64> {
    let [q, k, v] = qkv;
    let (t, d) = (k.shape()[1], q.shape()[2]);
    let kh = h / (q.shape()[0] / k.shape()[0]);
    let logits = scores(qkv, h, r, scale, causal);
    let top = logits.iter().cloned().fold(f64::NEG_INFINITY, f64::max);
    let weights: Vec<f64> = logits.iter().map(|l| (l - top).exp()).collect();
    let total: f64 = weights.iter().sum();
    let at_v = |j: usize, c: usize| v.data()[(kh * t + j) * d + c].to_f64();
    (0..d).map(|c| weights.iter().enumerate().map(|(j, w)| w * at_v(j, c)).sum::<f64>() / total).collect()
}

/// The row's log-sum-exp in base 2, in f64: log2(sum_j exp(scale q_r . k_j)), which is the
/// training forward's `lse` (log2 of the sum of exp2(c s) with c = scale log2(e)).
fn reference_lse<T: Element>(qkv: &[HostTensor<T>; 3], h: usize, r: usize, scale: f64, causal: bool) -> f64 {
    let logits = scores(qkv, h, r, scale, causal);
    let top = logits.iter().cloned().fold(f64::NEG_INFINITY, f64::max);
    (top + logits.iter().map(|l| (l - top).exp()).sum::<f64>().ln()) / std::f64::consts::LN_2
}

/// The largest error of `lse` (H x S) over `rows` rows spread over the heads and queries, each
/// relative to the larger of 1 and the reference's magnitude; infinite if one is NaN.
pub fn max_lse_err<T: Element>(
    qkv: &[HostTensor<T>; 3],
    lse: &HostTensor<f32>,
    scale: f64,
    rows: usize,
    causal: bool,
) -> f64 {
    let (heads, s) = (lse.shape()[0], lse.shape()[1]);
    let mut worst = 0.0f64;
    for n in 0..rows {
        let (h, r) = (n * heads / rows, (n * 2_654_435_761) % s);
        let want = reference_lse(qkv, h, r, scale, causal);
        let got = f64::from(lse.data()[h * s + r]);
        worst = worst.max(if got.is_nan() { f64::INFINITY } else { (got - want).abs() / want.abs().max(1.0) });
    }
    worst
}

/// The largest error of `o` over `rows` rows spread over the heads and queries, each relative to
/// its row's largest value; infinite if an element is NaN (outputs start as NaN).
pub fn max_rel_err<T: Element>(
    qkv: &[HostTensor<T>; 3],
    o: &HostTensor<T>,
    scale: f64,
    rows: usize,
    causal: bool,
) -> f64 {
    let (heads, s, d) = (o.shape()[0], o.shape()[1], o.shape()[2]);
    let mut worst = 0.0f64;
    for n in 0..rows {
        // A multiplicative hash spreads the rows over heads and queries.
        let (h, r) = (n * heads / rows, (n * 2_654_435_761) % s);
        let want = reference_row(qkv, h, r, scale, causal);
        let top = want.iter().fold(0.0f64, |m, x| m.max(x.abs()));
        for (c, w) in want.iter().enumerate() {
            let got = o.data()[(h * s + r) * d + c].to_f64();
            worst = worst.max(if got.is_nan() { f64::INFINITY } else { (got - w).abs() / top });
        }
    }
    worst
}
