//! The f64 reference for the attention backward pass (the training example and the backward's
//! tests): the forward's O and base-2 row log-sum-exps, and rows of dQ, dK and dV.
//!
//! Shapes as in `tessel_kernels::attention_backward`: Q, O, dO H x S x D; K, V HK x T x D; query
//! head h reads K/V head h / (H / HK).

use tessel::{Element, HostTensor, Result};

/// One attention problem: the inputs, rounded to the element type, read as f64.
pub struct Problem {
    pub heads: usize,
    pub kv_heads: usize,
    pub s: usize,
    pub t: usize,
    pub d: usize,
    pub scale: f64,
    pub causal: bool,
    q: Vec<f64>,
    k: Vec<f64>,
    v: Vec<f64>,
    d_o: Vec<f64>,
}

/// What the forward leaves for the backward, in f64: O (H x S x D), the base-2 row log-sum-exps
/// `lse[h, i] = log2(sum_j exp2(c q_i . k_j))` with c = scale log2(e), and delta = rowsum(dO o O).
pub struct Forward {
    pub o: Vec<f64>,
    pub lse: Vec<f64>,
    pub delta: Vec<f64>,
}

impl Problem {
    /// The problem of these tensors (Q, K, V, dO), read as f64.
    pub fn new<T: Element>(tensors: [&HostTensor<T>; 4], scale: f64, causal: bool) -> Problem {
        let [q, k, v, d_o] = tensors;
        let read = |x: &HostTensor<T>| x.data().iter().map(|e| e.to_f64()).collect::<Vec<f64>>();
        Problem {
            heads: q.shape()[0],
            kv_heads: k.shape()[0],
            s: q.shape()[1],
            t: k.shape()[1],
            d: q.shape()[2],
            scale,
            causal,
            q: read(q),
            k: read(k),
            v: read(v),
            d_o: read(d_o),
        }
    }

    /// The same problem with one input element moved by `by`: `which` 0, 1, 2 for Q, K, V.
    pub fn nudged(&self, which: usize, at: usize, by: f64) -> Problem {
        let mut p = Problem { q: self.q.clone(), k: self.k.clone(), v: self.v.clone(), d_o: self.d_o.clone(), ..*self };
        [&mut p.q, &mut p.k, &mut p.v][which][at] += by;
        p
    }

    fn row<'a>(&self, x: &'a [f64], row: usize) -> &'a [f64] {
        &x[row * self.d..(row + 1) * self.d]
    }

    fn kv_row(&self, h: usize, j: usize) -> usize {
        (h / (self.heads / self.kv_heads)) * self.t + j
    }

    /// The keys query i sees.
    fn seen(&self, i: usize) -> usize {
        if self.causal {
            (i + 1).min(self.t)
        } else {
            self.t
        }
    }

    /// c q_i . k_j, the base-2 logit.
    fn logit(&self, h: usize, i: usize, j: usize) -> f64 {
        let (q, k) = (self.row(&self.q, h * self.s + i), self.row(&self.k, self.kv_row(h, j)));
        self.scale * std::f64::consts::LOG2_E * q.iter().zip(k).map(|(a, b)| a * b).sum::<f64>()
    }

    /// O, lse and delta of every row.
    pub fn forward(&self) -> Forward {
        let (rows, d) = (self.heads * self.s, self.d);
        let (mut o, mut lse, mut delta) = (vec![0.0; rows * d], vec![0.0; rows], vec![0.0; rows]);
        for h in 0..self.heads {
            for i in 0..self.s {
                let r = h * self.s + i;
                let logits: Vec<f64> = (0..self.seen(i)).map(|j| self.logit(h, i, j)).collect();
                let top = logits.iter().cloned().fold(f64::NEG_INFINITY, f64::max);
                let total: f64 = logits.iter().map(|l| (l - top).exp2()).sum();
                lse[r] = top + total.log2();
                for (j, l) in logits.iter().enumerate() {
                    let (p, vj) = ((l - lse[r]).exp2(), self.row(&self.v, self.kv_row(h, j)));
                    for c in 0..d {
                        o[r * d + c] += p * vj[c];
                    }
                }
                delta[r] = (0..d).map(|c| o[r * d + c] * self.d_o[r * d + c]).sum();
            }
        }
        Forward { o, lse, delta }
    }

    /// sum(dO o O): the loss whose gradients the backward computes.
    pub fn loss(&self) -> f64 {
        let o = self.forward().o;
        o.iter().zip(&self.d_o).map(|(a, b)| a * b).sum()
    }

    /// P[i, j] and dS[i, j] of head h, and the size of dS's terms, P (|dP| + |delta|).
    fn p_ds(&self, f: &Forward, h: usize, i: usize, j: usize) -> (f64, f64, f64) {
        let r = h * self.s + i;
        let p = (self.logit(h, i, j) - f.lse[r]).exp2();
        let dp: f64 = self.row(&self.d_o, r).iter().zip(self.row(&self.v, self.kv_row(h, j))).map(|(a, b)| a * b).sum();
        (p, p * (dp - f.delta[r]), p * (dp.abs() + f.delta[r].abs()))
    }

    /// Row i of dQ of head h.
    pub fn dq_row(&self, f: &Forward, h: usize, i: usize) -> Row {
        let mut dq = Sums::new(self.d);
        for j in 0..self.seen(i) {
            let (_, ds, size) = self.p_ds(f, h, i, j);
            dq.add(self.scale * ds, self.scale * size, self.row(&self.k, self.kv_row(h, j)));
        }
        dq.row()
    }

    /// Rows j of dK and dV of K/V head `kv`: sums over the queries of every head of its group.
    pub fn dk_dv_rows(&self, f: &Forward, kv: usize, j: usize) -> (Row, Row) {
        let (mut dk, mut dv) = (Sums::new(self.d), Sums::new(self.d));
        let group = self.heads / self.kv_heads;
        for h in kv * group..(kv + 1) * group {
            let first = if self.causal { j } else { 0 };
            for i in first..self.s {
                let (p, ds, size) = self.p_ds(f, h, i, j);
                let r = h * self.s + i;
                dk.add(self.scale * ds, self.scale * size, self.row(&self.q, r));
                dv.add(p, p, self.row(&self.d_o, r));
            }
        }
        (dk.row(), dv.row())
    }
}

/// A row of a gradient, and the size of what it adds up.
pub struct Row {
    /// The row's values.
    pub values: Vec<f64>,
    /// The largest, over the row's columns, of the sum of its terms' magnitudes (dS's terms taken
    /// as P (|dP| + |delta|)). Where the terms cancel, the row is far smaller than this, and the
    /// rounding errors of computing it in f32 are relative to this, not to the row: causal query
    /// 0's dQ is 0 exactly (its one dS is P (dP - delta) with delta = dO . V_0 = dP), but dP and
    /// delta are computed apart, in their own order of additions (on the GPU, dP by the tensor
    /// cores), and differ by a few f32 ulps of dP.
    pub size: f64,
}

/// A row's sums of weighted input rows, and of their magnitudes.
struct Sums {
    values: Vec<f64>,
    sizes: Vec<f64>,
}

impl Sums {
    fn new(d: usize) -> Sums {
        Sums { values: vec![0.0; d], sizes: vec![0.0; d] }
    }

    /// Adds `weight x`, and `size |x|` to the sizes (`size` at least `|weight|`).
    fn add(&mut self, weight: f64, size: f64, x: &[f64]) {
        for ((value, sum), x) in self.values.iter_mut().zip(&mut self.sizes).zip(x) {
            *value += weight * x;
            *sum += size * x.abs();
        }
    }

    fn row(self) -> Row {
        Row { size: self.sizes.iter().fold(0.0, |m, s| m.max(*s)), values: self.values }
    }
}

/// The forward's O rounded to `T` and its lse as f32, as the backward takes them; `f` takes the
/// rounded O ([`take_o`]).
pub fn saved<T: Element>(p: &Problem, f: &mut Forward) -> Result<(HostTensor<T>, HostTensor<f32>)> {
    let o = HostTensor::new([p.heads, p.s, p.d], f.o.iter().map(|x| T::from_f64(*x)).collect())?;
    take_o(p, f, &o);
    let lse = HostTensor::new([p.heads, p.s], f.lse.iter().map(|x| *x as f32).collect())?;
    Ok((o, lse))
}

/// Makes `o` (a forward kernel's, or the reference's rounded) the O of `f` and recomputes delta
/// from it. The backward sees only that O, and delta's cancellation in dP - delta would otherwise
/// show O's rounding (2^-9 relative in bf16) as errors of a few percent in the gradients of rows
/// whose dS is small.
pub fn take_o<T: Element>(p: &Problem, f: &mut Forward, o: &HostTensor<T>) {
    f.o = o.data().iter().map(|x| x.to_f64()).collect();
    for (r, delta) in f.delta.iter_mut().enumerate() {
        *delta = (0..p.d).map(|c| f.o[r * p.d + c] * p.d_o[r * p.d + c]).sum();
    }
}

/// The largest error of `got`'s row `row` against `want`, relative to the row's largest value,
/// or to `floor` if that is larger (infinite for a NaN).
pub fn row_err<T: Element>(got: &HostTensor<T>, row: usize, want: &[f64], floor: f64) -> f64 {
    let top = want.iter().fold(floor.max(f64::MIN_POSITIVE), |m, x| m.max(x.abs()));
    let d = want.len();
    want.iter().enumerate().fold(0.0, |worst, (c, w)| {
        let g = got.data()[row * d + c].to_f64();
        worst.max(if g.is_nan() { f64::INFINITY } else { (g - w).abs() / top })
    })
}

/// The largest row error of each of `rows` (index, reference row) of `got`: relative to each row's
/// largest value, or to a thousandth of a larger scale. That is the size of the row's terms
/// ([`Row::size`]) where they cancel: causal query 0's dQ, 0 exactly, holds rounding noise of
/// dP's size, about 1e-5 of the other rows on the GPU at S = 16384. Or it is the largest value of
/// all the rows, for a row far smaller than the others (in f16, below 6.1e-5, the spacing of the
/// subnormals is not relative to the value).
fn worst<T: Element>(got: &HostTensor<T>, rows: &[(usize, Row)]) -> f64 {
    let top = rows.iter().flat_map(|(_, w)| &w.values).fold(0.0f64, |m, x| m.max(x.abs()));
    rows.iter().map(|(r, want)| row_err(got, *r, &want.values, 1e-3 * top.max(want.size))).fold(0.0, f64::max)
}

/// The largest row error of dQ, dK and dV against the reference ([`worst`]), over `rows` rows of
/// each spread over heads and positions (every row when `rows` is at least their number).
pub fn max_rel_err<T: Element>(p: &Problem, f: &Forward, grads: [&HostTensor<T>; 3], rows: usize) -> [f64; 3] {
    let [dq, dk, dv] = grads;
    let pick = |count: usize| -> Vec<usize> {
        (0..rows.min(count)).map(|n| if rows >= count { n } else { (n * 2_654_435_761) % count }).collect()
    };
    let q_rows: Vec<_> = pick(p.heads * p.s).into_iter().map(|r| (r, p.dq_row(f, r / p.s, r % p.s))).collect();
    let (mut k_rows, mut v_rows) = (Vec::new(), Vec::new());
    for r in pick(p.kv_heads * p.t) {
        let (k, v) = p.dk_dv_rows(f, r / p.t, r % p.t);
        k_rows.push((r, k));
        v_rows.push((r, v));
    }
    [worst(dq, &q_rows), worst(dk, &k_rows), worst(dv, &v_rows)]
}

/// The largest difference between the gradients (dQ, dK, dV) and central differences of the f64
/// loss sum(dO o O) at the elements `at` (taken modulo each tensor's length) of Q, K and V, each
/// relative to its gradient's largest value.
pub fn finite_difference_err<T: Element>(p: &Problem, grads: [&HostTensor<T>; 3], at: &[usize]) -> f64 {
    let eps = 1e-4;
    let mut worst = 0.0f64;
    for (which, grad) in grads.iter().enumerate() {
        let top = grad.data().iter().fold(f64::MIN_POSITIVE, |m, g| m.max(g.to_f64().abs()));
        for n in at.iter().map(|n| n % grad.len()) {
            let numeric = (p.nudged(which, n, eps).loss() - p.nudged(which, n, -eps).loss()) / (2.0 * eps);
            let got = grad.data()[n].to_f64();
            worst = worst.max(if got.is_nan() { f64::INFINITY } else { (got - numeric).abs() / top });
        }
    }
    worst
}
