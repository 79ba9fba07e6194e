//! The collective GEMMs (`kernels/src/collective.rs`): every kernel's instances for the tests on 1,
//! 2 and 4 simulated devices in the interpreter, against f64 references of all_gather(A) @ B and
//! of the reduce-scatter of the ranks' A @ B; the dispatchers' checks and tile choice; and (with
//! `--ignored`) the dispatchers on a group of GPUs: 1 GPU, then 2, 4 and 8, each skipped (with a
//! line saying so) where fewer are present.
//!
//! Tolerances: the all-gather GEMM rounds each f32 sum to bf16 once, a relative error of at most
//! 2^-8 of the value (bf16 keeps 8 significant bits), measured against the largest value: 2^-8
//! plus a margin for the order of the f32 sums. The reduce-scatter GEMM's running sum is rounded to
//! bf16 at every hop, as NCCL's bf16 ring rounds it, and once more at the end: up to W roundings
//! of sums about as large as the result (random operands), so W times that.

use crate::common;

use common::{assert_close, matmul, values, Rng};
use tessel::prelude::*;
use tessel_kernels::collective::{
    self as coll, all_gather_matmul, matmul_reduce_scatter, AllGatherBuffers, ReduceScatterBuffers, Tiles,
};

/// One bf16 rounding of the result (2^-8 = 3.9e-3), relative to its largest value, with room for
/// the order of the f32 sums.
const ROUNDING: f64 = 4.5e-3;

/// `w` tensors of `shape`, N(0,1) in bf16.
fn ranks(rng: &mut Rng, w: usize, shape: [usize; 2]) -> Vec<HostTensor<bf16>> {
    (0..w).map(|_| rng.tensor::<bf16>(&shape, 1.0)).collect()
}

/// `w` tensors of `shape` holding NaN, so that an element left unwritten fails the comparison.
fn poisoned(w: usize, shape: [usize; 2]) -> Vec<HostTensor<bf16>> {
    (0..w).map(|_| HostTensor::new(shape, vec![bf16::NAN; shape[0] * shape[1]]).unwrap()).collect()
}

/// `w` counter arrays of `len`, at zero.
fn counters(w: usize, len: usize) -> Vec<HostTensor<u32>> {
    (0..w).map(|_| HostTensor::zeros([len]).unwrap()).collect()
}

fn balanced(sems: &[HostTensor<u32>]) -> bool {
    sems.iter().all(|s| s.data().iter().all(|&c| c == 0))
}

/// The f64 references of the all-gather GEMM on rank `r`: all_gather(A) and all_gather(A) @ B_r.
fn all_gather_ref(a: &[HostTensor<bf16>], b: &HostTensor<bf16>, k: usize, n: usize) -> (Vec<f64>, Vec<f64>) {
    let gathered: Vec<f64> = a.iter().flat_map(values).collect();
    let m = gathered.len() / k;
    let c = matmul(&gathered, &values(b), m, n, k, true);
    (gathered, c)
}

/// The f64 reference of the reduce-scatter GEMM on rank `r`: rows `r rows ..` of sum_q A_q @ B_q.
fn reduce_scatter_ref(a: &[HostTensor<bf16>], b: &[HostTensor<bf16>], r: usize, rows: usize, n: usize, k: usize) -> Vec<f64> {
    let mut sum = vec![0.0; rows * n];
    for (aq, bq) in a.iter().zip(b) {
        let block = &values(aq)[r * rows * k..(r + 1) * rows * k];
        for (s, v) in sum.iter_mut().zip(matmul(block, &values(bq), rows, n, k, true)) {
            *s += v;
        }
    }
    sum
}

/// Runs an all-gather GEMM of `w` ranks of `rows` x `k` on `n` columns (through `run`, which gets
/// A, B, gathered, C and the counters) and checks every rank's C and gathered A, and the counters.
fn check_all_gather(
    what: &str,
    (w, rows, n, k): (usize, usize, usize, usize),
    run: impl Fn(&[HostTensor<bf16>], &[HostTensor<bf16>], &mut [HostTensor<bf16>], &mut [HostTensor<bf16>], &mut [HostTensor<u32>]) -> Result<()>,
) {
    let mut rng = Rng::new(3000 + (w * rows + n + k) as u64);
    let (a, b) = (ranks(&mut rng, w, [rows, k]), ranks(&mut rng, w, [k, n]));
    let (mut gathered, mut c) = (poisoned(w, [w * rows, k]), poisoned(w, [w * rows, n]));
    let mut sems = counters(w, AllGatherBuffers::counters(w * rows));
    run(&a, &b, &mut gathered, &mut c, &mut sems).unwrap();
    for r in 0..w {
        let (want_gathered, want_c) = all_gather_ref(&a, &b[r], k, n);
        assert_eq!(values(&gathered[r]), want_gathered, "{what}: rank {r}'s gathered A");
        assert_close(&format!("{what}: rank {r}'s C"), &values(&c[r]), &want_c, ROUNDING);
    }
    assert!(balanced(&sems), "{what}: the counters end at zero");
}

/// Runs a reduce-scatter GEMM of `w` ranks (`w rows` x `k` A, `k x n` B each) through `run` (A, B,
/// partial, out, counters) and checks every rank's rows of the sum, and the counters.
fn check_reduce_scatter(
    what: &str,
    (w, rows, n, k): (usize, usize, usize, usize),
    run: impl Fn(&[HostTensor<bf16>], &[HostTensor<bf16>], &mut [HostTensor<bf16>], &mut [HostTensor<bf16>], &mut [HostTensor<u32>]) -> Result<()>,
) {
    let mut rng = Rng::new(4000 + (w * rows + n + k) as u64);
    let (a, b) = (ranks(&mut rng, w, [w * rows, k]), ranks(&mut rng, w, [k, n]));
    let (mut partial, mut out) = (poisoned(w, [w * rows, n]), poisoned(w, [rows, n]));
    let mut sems = counters(w, ReduceScatterBuffers::counters(w * rows, n));
    run(&a, &b, &mut partial, &mut out, &mut sems).unwrap();
    for (r, got) in out.iter().enumerate() {
        let want = reduce_scatter_ref(&a, &b, r, rows, n, k);
        assert_close(&format!("{what}: rank {r}'s rows"), &values(got), &want, w as f64 * ROUNDING);
    }
    assert!(balanced(&sems), "{what}: the counters end at zero");
}

// Shapes: N and K overhang their last tile (ragged), several panels per step where the world is
// small, and more units than programs, so that programs take several tiles across steps.

#[test]
fn all_gather_matmul_on_one_and_two_simulated_devices() {
    check_all_gather("all-gather GEMM, 1 device", (1, 256, 264, 136), |a, b, g, c, s| {
        all_gather_matmul::<bf16, 1, 256, 4, 128, 3>::interpret(a, b, g, c, s)
    });
    check_all_gather("all-gather GEMM, 2 devices", (2, 256, 264, 200), |a, b, g, c, s| {
        all_gather_matmul::<bf16, 2, 256, 4, 128, 3>::interpret(a, b, g, c, s)
    });
    check_all_gather("all-gather GEMM, 2 devices, 128 x 128 tiles", (2, 128, 200, 72), |a, b, g, c, s| {
        all_gather_matmul::<bf16, 2, 128, 6, 128, 2>::interpret(a, b, g, c, s)
    });
}

#[test]
fn all_gather_matmul_on_four_simulated_devices() {
    check_all_gather("all-gather GEMM, 4 devices", (4, 128, 264, 136), |a, b, g, c, s| {
        all_gather_matmul::<bf16, 4, 256, 4, 128, 3>::interpret(a, b, g, c, s)
    });
    check_all_gather("all-gather GEMM, 4 devices, 128 x 128 tiles", (4, 128, 136, 64), |a, b, g, c, s| {
        all_gather_matmul::<bf16, 4, 128, 6, 128, 2>::interpret(a, b, g, c, s)
    });
}

#[test]
fn matmul_reduce_scatter_on_one_and_two_simulated_devices() {
    check_reduce_scatter("reduce-scatter GEMM, 1 device", (1, 256, 264, 136), |a, b, p, o, s| {
        matmul_reduce_scatter::<bf16, 1, 256, 3, 3>::interpret(a, b, p, o, s)
    });
    check_reduce_scatter("reduce-scatter GEMM, 2 devices", (2, 256, 264, 200), |a, b, p, o, s| {
        matmul_reduce_scatter::<bf16, 2, 256, 3, 3>::interpret(a, b, p, o, s)
    });
    check_reduce_scatter("reduce-scatter GEMM, 2 devices, 128 x 128 tiles", (2, 128, 200, 72), |a, b, p, o, s| {
        matmul_reduce_scatter::<bf16, 2, 128, 5, 2>::interpret(a, b, p, o, s)
    });
}

#[test]
fn matmul_reduce_scatter_on_four_simulated_devices() {
    check_reduce_scatter("reduce-scatter GEMM, 4 devices", (4, 128, 264, 136), |a, b, p, o, s| {
        matmul_reduce_scatter::<bf16, 4, 256, 3, 3>::interpret(a, b, p, o, s)
    });
    check_reduce_scatter("reduce-scatter GEMM, 4 devices, 128 x 128 tiles", (4, 128, 136, 64), |a, b, p, o, s| {
        matmul_reduce_scatter::<bf16, 4, 128, 5, 2>::interpret(a, b, p, o, s)
    });
}
