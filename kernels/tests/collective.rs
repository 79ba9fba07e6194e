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

use common::{assert_close, gpus, matmul, values, Rng};
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
fn reduce_scatter_ref(
    a: &[HostTensor<bf16>],
    b: &[HostTensor<bf16>],
    r: usize,
    rows: usize,
    n: usize,
    k: usize,
) -> Vec<f64> {
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
    run: impl Fn(
        &[HostTensor<bf16>],
        &[HostTensor<bf16>],
        &mut [HostTensor<bf16>],
        &mut [HostTensor<bf16>],
        &mut [HostTensor<u32>],
    ) -> Result<()>,
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
    run: impl Fn(
        &[HostTensor<bf16>],
        &[HostTensor<bf16>],
        &mut [HostTensor<bf16>],
        &mut [HostTensor<bf16>],
        &mut [HostTensor<u32>],
    ) -> Result<()>,
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
    check_all_gather(
        "all-gather GEMM, 1 device",
        (1, 256, 264, 136),
        all_gather_matmul::<bf16, 1, 256, 4, 128, 3>::interpret,
    );
    check_all_gather(
        "all-gather GEMM, 2 devices",
        (2, 256, 264, 200),
        all_gather_matmul::<bf16, 2, 256, 4, 128, 3>::interpret,
    );
    check_all_gather(
        "all-gather GEMM, 2 devices, 128 x 128 tiles",
        (2, 128, 200, 72),
        all_gather_matmul::<bf16, 2, 128, 6, 128, 2>::interpret,
    );
}

#[test]
fn all_gather_matmul_on_four_simulated_devices() {
    check_all_gather(
        "all-gather GEMM, 4 devices",
        (4, 128, 264, 136),
        all_gather_matmul::<bf16, 4, 256, 4, 128, 3>::interpret,
    );
    check_all_gather(
        "all-gather GEMM, 4 devices, 128 x 128 tiles",
        (4, 128, 136, 64),
        all_gather_matmul::<bf16, 4, 128, 6, 128, 2>::interpret,
    );
}

#[test]
fn matmul_reduce_scatter_on_one_and_two_simulated_devices() {
    check_reduce_scatter(
        "reduce-scatter GEMM, 1 device",
        (1, 256, 264, 136),
        matmul_reduce_scatter::<bf16, 1, 256, 3, 3>::interpret,
    );
    check_reduce_scatter(
        "reduce-scatter GEMM, 2 devices",
        (2, 256, 264, 200),
        matmul_reduce_scatter::<bf16, 2, 256, 3, 3>::interpret,
    );
    // As many tiles per step as programs (3), so each waits for the tile of its own position on
    // the next rank, and six steps of K, so that the running sum is fetched after the second.
    check_reduce_scatter(
        "reduce-scatter GEMM, 2 devices, a tile per program and step",
        (2, 128, 520, 328),
        matmul_reduce_scatter::<bf16, 2, 256, 3, 3>::interpret,
    );
    check_reduce_scatter(
        "reduce-scatter GEMM, 2 devices, 128 x 128 tiles",
        (2, 128, 200, 72),
        matmul_reduce_scatter::<bf16, 2, 128, 5, 2>::interpret,
    );
}

#[test]
fn matmul_reduce_scatter_on_four_simulated_devices() {
    check_reduce_scatter(
        "reduce-scatter GEMM, 4 devices",
        (4, 128, 264, 136),
        matmul_reduce_scatter::<bf16, 4, 256, 3, 3>::interpret,
    );
    check_reduce_scatter(
        "reduce-scatter GEMM, 4 devices, 128 x 128 tiles",
        (4, 128, 136, 64),
        matmul_reduce_scatter::<bf16, 4, 128, 5, 2>::interpret,
    );
}

#[test]
fn the_dispatchers_run_the_gpus_instances_in_the_interpreter() {
    // 132 programs per device, most of them idle at this size: the instances the GPU runs.
    let (w, rows, n, k) = (2, 128, 136, 64);
    let mut rng = Rng::new(5000);
    let (a, b) = (ranks(&mut rng, w, [rows, k]), ranks(&mut rng, w, [k, n]));
    let mut c = poisoned(w, [w * rows, n]);
    let gathered = coll::interpret_all_gather_matmul_bf16(&a, &b, &mut c).unwrap();
    for r in 0..w {
        let (want_gathered, want_c) = all_gather_ref(&a, &b[r], k, n);
        assert_eq!(values(&gathered[r]), want_gathered, "rank {r}'s gathered A");
        assert_close(&format!("dispatched all-gather GEMM, rank {r}"), &values(&c[r]), &want_c, ROUNDING);
    }
    let (a, b) = (ranks(&mut rng, w, [w * rows, k]), ranks(&mut rng, w, [k, n]));
    let mut out = poisoned(w, [rows, n]);
    coll::interpret_matmul_reduce_scatter_bf16(&a, &b, &mut out).unwrap();
    for (r, got) in out.iter().enumerate() {
        let want = reduce_scatter_ref(&a, &b, r, rows, n, k);
        assert_close(&format!("dispatched reduce-scatter GEMM, rank {r}"), &values(got), &want, w as f64 * ROUNDING);
    }
}

#[test]
fn steps_with_a_tile_per_sm_get_wide_tiles() {
    // Llama-3-70B-like layers at M = 8192 tokens: gate/up fused (N = 57344 / W) and the
    // reduce-scatter layers (N = 8192) fill the SMs with 128 x 256 tiles at every W...
    for w in [2, 4, 8] {
        assert_eq!(Tiles::choose(8192 / w, 57344 / w), Tiles::Wide, "gate/up on {w}");
        assert_eq!(Tiles::choose(8192 / w, 8192), Tiles::Wide, "attention out / FFN down on {w}");
    }
    // ...the QKV projection (N = 10240 / W) does not on 8 GPUs: 8 x 5 wide tiles a step.
    assert_eq!(Tiles::choose(1024, 1280), Tiles::Narrow);
    assert_eq!(Tiles::choose(2048, 1280), Tiles::Narrow);
    assert_eq!(Tiles::choose(2048, 2560), Tiles::Wide);
    assert_eq!(Tiles::named(" narrow "), Some(Tiles::Narrow));
    assert_eq!(Tiles::named("mid"), None);
}

/// `w` bf16 tensors of `shape` at zero.
fn zeros(w: usize, shape: [usize; 2]) -> Vec<HostTensor<bf16>> {
    (0..w).map(|_| HostTensor::zeros(shape).unwrap()).collect()
}

#[test]
fn shapes_the_kernels_cannot_take_are_errors() {
    let invalid = |err: Error, argument: &str, says: &str| match &err {
        Error::InvalidArgument { argument: got, reason } if *got == argument && reason.contains(says) => {}
        _ => panic!("expected an invalid `{argument}` saying `{says}`, got: {err}"),
    };
    // Three ranks: no instance.
    let err =
        coll::interpret_all_gather_matmul_bf16(&zeros(3, [128, 64]), &zeros(3, [64, 64]), &mut zeros(3, [384, 64]));
    invalid(err.unwrap_err(), "group", "1, 2, 4 or 8 GPUs, not 3");
    // Rows per rank not a multiple of 128, for either kernel.
    let err =
        coll::interpret_all_gather_matmul_bf16(&zeros(2, [64, 64]), &zeros(2, [64, 64]), &mut zeros(2, [128, 64]));
    invalid(err.unwrap_err(), "a", "M / W = 64");
    let err =
        coll::interpret_matmul_reduce_scatter_bf16(&zeros(2, [384, 64]), &zeros(2, [64, 64]), &mut zeros(2, [192, 64]));
    invalid(err.unwrap_err(), "a", "M / W = 192");
    let err =
        coll::interpret_matmul_reduce_scatter_bf16(&zeros(4, [130, 64]), &zeros(4, [64, 64]), &mut zeros(4, [32, 64]));
    invalid(err.unwrap_err(), "a", "do not split into 4");
    // No K.
    let err = coll::interpret_all_gather_matmul_bf16(&zeros(2, [128, 0]), &zeros(2, [0, 64]), &mut zeros(2, [256, 64]));
    invalid(err.unwrap_err(), "b", "K = 0");
    // Shapes that differ between ranks, or from what the others imply.
    let mut a = zeros(2, [128, 64]);
    a[1] = HostTensor::zeros([256, 64]).unwrap();
    let err = coll::interpret_all_gather_matmul_bf16(&a, &zeros(2, [64, 64]), &mut zeros(2, [256, 64])).unwrap_err();
    assert!(matches!(err, Error::RankShape { argument: "a", rank: 1, .. }), "{err}");
    let err =
        coll::interpret_all_gather_matmul_bf16(&zeros(2, [128, 64]), &zeros(2, [72, 64]), &mut zeros(2, [256, 64]));
    assert!(matches!(err.unwrap_err(), Error::ShapeMismatch { tensor: "b", .. }));
    let err =
        coll::interpret_all_gather_matmul_bf16(&zeros(2, [128, 64]), &zeros(2, [64, 64]), &mut zeros(2, [128, 64]));
    assert!(matches!(err.unwrap_err(), Error::ShapeMismatch { tensor: "c", .. }));
    let err =
        coll::interpret_matmul_reduce_scatter_bf16(&zeros(2, [256, 64]), &zeros(2, [64, 64]), &mut zeros(2, [256, 64]));
    assert!(matches!(err.unwrap_err(), Error::ShapeMismatch { tensor: "out", .. }));
    // One tensor too few, and none.
    let err =
        coll::interpret_all_gather_matmul_bf16(&zeros(2, [128, 64]), &zeros(1, [64, 64]), &mut zeros(2, [256, 64]));
    assert!(matches!(err.unwrap_err(), Error::RankCount { argument: "b", expected: 2, got: 1 }));
    let err = coll::interpret_matmul_reduce_scatter_bf16(&[], &[], &mut []).unwrap_err();
    assert!(matches!(err, Error::InvalidArgument { argument: "a", .. }), "{err}");
    // A matrix of the wrong rank.
    let flat: Vec<HostTensor<bf16>> = (0..2).map(|_| HostTensor::zeros([64]).unwrap()).collect();
    let err = coll::interpret_all_gather_matmul_bf16(&zeros(2, [128, 64]), &flat, &mut zeros(2, [256, 64]));
    assert!(matches!(err.unwrap_err(), Error::ShapeRank { tensor: "b", expected: 2, .. }));
}

// On GPUs: `cargo test -p tessel-kernels --test kernels --release -- --ignored collective::`.

/// Host tensors onto their ranks' devices.
fn upload(group: &DeviceGroup, ts: &[HostTensor<bf16>]) -> Vec<DeviceTensor<bf16>> {
    ts.iter().enumerate().map(|(r, t)| DeviceTensor::from_host(group.device(r), t).unwrap()).collect()
}

/// Rows `every`-th (and the last) of a `rows x n` result against `want(i)`, row `i` of the
/// reference: the GPU shapes are large enough that a full f64 product would be slow.
fn check_rows(what: &str, got: &HostTensor<bf16>, n: usize, tol: f64, want: impl Fn(usize) -> Vec<f64>) {
    let rows = got.shape()[0];
    let picked: Vec<usize> = (0..rows).step_by(37).chain([rows - 1]).collect();
    let got = values(got);
    let got: Vec<f64> = picked.iter().flat_map(|&i| got[i * n..(i + 1) * n].to_vec()).collect();
    let want: Vec<f64> = picked.iter().flat_map(|&i| want(i)).collect();
    assert_close(what, &got, &want, tol);
}

/// Row `i` of `a` (`rows x k`) times `b` (`k x n`), in f64.
fn row_times(a: &[f64], b: &[f64], i: usize, n: usize, k: usize) -> Vec<f64> {
    matmul(&a[i * k..(i + 1) * k], b, 1, n, k, true)
}

/// Both collective GEMMs on `group`, with each tile width, launched twice back to back on other
/// operands (the second launch's sends wait until each receiver has started it: each first
/// launch's result must be intact), against the host reference; the counters end at zero.
/// M = 2048 rows in all, N = 2312 (the last tile overhangs): 160 or more tiles, so that programs
/// take several, and K = 136.
fn collective_gemms_on(group: &DeviceGroup) {
    let (w, m, n, k) = (group.len(), 2048, 2312, 136);
    let rows = m / w;
    let mut rng = Rng::new(6000 + w as u64);
    for tiles in [Tiles::Wide, Tiles::Narrow] {
        let mut buffers = AllGatherBuffers::new(group, m, k).unwrap();
        let runs: Vec<_> = (0..2).map(|_| (ranks(&mut rng, w, [rows, k]), ranks(&mut rng, w, [k, n]))).collect();
        let mut cs: Vec<Vec<DeviceTensor<bf16>>> = Vec::new();
        for (a, b) in &runs {
            let mut c = upload(group, &poisoned(w, [m, n]));
            coll::all_gather_matmul_bf16_with(tiles, group, &upload(group, a), &upload(group, b), &mut c, &mut buffers)
                .unwrap();
            cs.push(c);
        }
        group.synchronize().unwrap();
        for (run, ((a, b), c)) in runs.iter().zip(&cs).enumerate() {
            let gathered: Vec<f64> = a.iter().flat_map(values).collect();
            for r in 0..w {
                let what = format!("all-gather GEMM on {w} GPUs, {tiles:?} tiles, launch {run}, rank {r}");
                let br = values(&b[r]);
                check_rows(&what, &c[r].to_host().unwrap(), n, ROUNDING, |i| row_times(&gathered, &br, i, n, k));
            }
            if run == 1 {
                for (r, g) in buffers.gathered().to_host().unwrap().iter().enumerate() {
                    assert_eq!(values(g), gathered, "rank {r}'s gathered A");
                }
            }
        }
        assert!(balanced(&buffers.sems().to_host().unwrap()), "the all-gather's counters end at zero");

        let mut buffers = ReduceScatterBuffers::new(group, m, n).unwrap();
        let runs: Vec<_> = (0..2).map(|_| (ranks(&mut rng, w, [m, k]), ranks(&mut rng, w, [k, n]))).collect();
        let mut outs: Vec<Vec<DeviceTensor<bf16>>> = Vec::new();
        for (a, b) in &runs {
            let mut out = upload(group, &poisoned(w, [rows, n]));
            coll::matmul_reduce_scatter_bf16_with(
                tiles,
                group,
                &upload(group, a),
                &upload(group, b),
                &mut out,
                &mut buffers,
            )
            .unwrap();
            outs.push(out);
        }
        group.synchronize().unwrap();
        for (run, ((a, b), out)) in runs.iter().zip(&outs).enumerate() {
            let (a, b): (Vec<Vec<f64>>, Vec<Vec<f64>>) =
                (a.iter().map(values).collect(), b.iter().map(values).collect());
            for (r, got) in out.iter().enumerate() {
                let what = format!("reduce-scatter GEMM on {w} GPUs, {tiles:?} tiles, launch {run}, rank {r}");
                let sum = |i: usize| {
                    let terms = a.iter().zip(&b).map(|(aq, bq)| row_times(aq, bq, r * rows + i, n, k));
                    terms.fold(vec![0.0; n], |acc, t| acc.iter().zip(t).map(|(x, y)| x + y).collect())
                };
                check_rows(&what, &got.to_host().unwrap(), n, w as f64 * ROUNDING, sum);
            }
        }
        assert!(balanced(&buffers.sems().to_host().unwrap()), "the reduce-scatter's counters end at zero");
    }
}

#[test]
#[ignore = "needs an NVIDIA GPU"]
fn collective_gemms_on_one_gpu() {
    collective_gemms_on(&gpus(1).expect("a GPU"));
}

#[test]
#[ignore = "needs an NVIDIA GPU"]
fn collective_gemms_on_two_gpus() {
    let Some(group) = gpus(2) else { return };
    collective_gemms_on(&group);
}

#[test]
#[ignore = "needs an NVIDIA GPU"]
fn collective_gemms_on_four_gpus() {
    let Some(group) = gpus(4) else { return };
    collective_gemms_on(&group);
}

#[test]
#[ignore = "needs an NVIDIA GPU"]
fn collective_gemms_on_eight_gpus() {
    let Some(group) = gpus(8) else { return };
    collective_gemms_on(&group);
}

#[test]
#[ignore = "needs an NVIDIA GPU"]
fn buffers_of_another_group_or_shape_are_errors() {
    let group = gpus(1).expect("a GPU");
    let (a, b) = (upload(&group, &zeros(1, [256, 64])), upload(&group, &zeros(1, [64, 128])));
    let mut c = upload(&group, &zeros(1, [256, 128]));
    let mut wrong = AllGatherBuffers::new(&group, 256, 72).unwrap();
    let err = coll::all_gather_matmul_bf16(&group, &a, &b, &mut c, &mut wrong).unwrap_err();
    assert!(matches!(err, Error::ShapeMismatch { tensor: "gathered", .. }), "{err}");
    let other = gpus(1).expect("a GPU");
    let mut theirs = AllGatherBuffers::new(&other, 256, 64).unwrap();
    let err = coll::all_gather_matmul_bf16(&group, &a, &b, &mut c, &mut theirs).unwrap_err();
    assert!(matches!(err, Error::WrongGroup { .. }), "{err}");
}
