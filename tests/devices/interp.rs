//! The collectives of `kernels` on 1, 2 and 4 simulated devices, against their references; the
//! errors of a group's arguments; and the races between devices the detector reports.

use super::kernels::*;
use crate::common::{assert_close, values, Rng};
use tessel::prelude::*;

/// `n` tensors of `shape`, N(0,1) f32 (so that their sums in f64 are exact references).
fn normal(rng: &mut Rng, n: usize, shape: [usize; 2]) -> Vec<HostTensor<f32>> {
    (0..n).map(|_| rng.tensor::<f32>(&shape, 1.0)).collect()
}

fn zeros<T: tessel::Element>(n: usize, shape: [usize; 2]) -> Vec<HostTensor<T>> {
    (0..n).map(|_| HostTensor::zeros(shape).unwrap()).collect()
}

fn counters(n: usize, len: usize) -> Vec<HostTensor<u32>> {
    (0..n).map(|_| HostTensor::zeros([len]).unwrap()).collect()
}

/// Runs `ring_all_gather` on `w` devices of `tiles` tiles each, checks every device's result and
/// that the counters are back at zero.
fn check_all_gather(
    w: usize,
    tiles: usize,
    run: impl Fn(&[HostTensor<f32>], &mut [HostTensor<f32>], &mut [HostTensor<u32>]) -> Result<()>,
) {
    let mut rng = Rng::new(30 + w as u64);
    let x = normal(&mut rng, w, [64 * tiles, 64]);
    let mut out = zeros::<f32>(w, [64 * tiles * w, 64]);
    let mut ready = counters(w, tiles);
    run(&x, &mut out, &mut ready).unwrap();
    let want = all_gather_ref(&x.iter().map(values).collect::<Vec<_>>());
    for (d, o) in out.iter().enumerate() {
        assert_eq!(values(o), want, "device {d}'s all-gather on {w} devices");
    }
    assert!(ready.iter().all(|r| r.data().iter().all(|&c| c == 0)), "the counters balance");
}

#[test]
fn ring_all_gather_on_one_two_and_four_devices() {
    check_all_gather(1, 2, ring_all_gather::<1>::interpret);
    check_all_gather(2, 3, ring_all_gather::<2>::interpret);
    check_all_gather(4, 2, ring_all_gather::<4>::interpret);
}

/// Runs `reduce_scatter` on `w` devices of `tiles` tiles of the result each.
fn check_reduce_scatter(
    w: usize,
    tiles: usize,
    run: impl Fn(&[HostTensor<f32>], &mut [HostTensor<f32>], &mut [HostTensor<u32>], &mut [HostTensor<f32>]) -> Result<()>,
) {
    let mut rng = Rng::new(40 + w as u64);
    let rows = 64 * tiles;
    let x = normal(&mut rng, w, [rows * w, 64]);
    let mut parts = zeros::<f32>(w, [rows * w, 64]);
    let mut ready = counters(w, tiles);
    let mut y = zeros::<f32>(w, [rows, 64]);
    run(&x, &mut parts, &mut ready, &mut y).unwrap();
    let xs: Vec<Vec<f64>> = x.iter().map(values).collect();
    for (d, got) in y.iter().enumerate() {
        // f32 sums of w terms, in the kernel's order: within a few ulp of the f64 sum.
        assert_close(
            &format!("device {d}'s reduce-scatter on {w} devices"),
            &values(got),
            &reduce_scatter_ref(&xs, d, rows),
            1e-6,
        );
    }
    assert!(ready.iter().all(|r| r.data().iter().all(|&c| c == 0)), "the counters balance");
}

#[test]
fn reduce_scatter_on_one_two_and_four_devices() {
    check_reduce_scatter(1, 2, reduce_scatter::<1>::interpret);
    check_reduce_scatter(2, 2, reduce_scatter::<2>::interpret);
    check_reduce_scatter(4, 3, reduce_scatter::<4>::interpret);
}

/// Per-device host tensors.
type Ranks<T> = Vec<HostTensor<T>>;

/// Inputs of the two-device kernels: `x` (N(0,1)), `buf`, `ready` and `y` (zeros).
fn pair(rng: &mut Rng) -> (Ranks<f32>, Ranks<f32>, Ranks<u32>, Ranks<f32>) {
    (normal(rng, 2, [64, 64]), zeros(2, [64, 64]), counters(2, 1), zeros(2, [64, 64]))
}

#[test]
fn a_tma_store_completed_before_the_signal_is_seen_by_the_peer() {
    let (x, mut buf, mut ready, mut y) = pair(&mut Rng::new(50));
    publish_tma_store::interpret(&x, &mut buf, &mut ready, &mut y, 1).unwrap();
    assert_eq!(values(&y[1]), values(&x[0]));
    assert_eq!(values(&buf[1]), values(&x[0]));
}

#[test]
fn a_tma_store_only_read_before_the_signal_races_with_the_peers_read() {
    let (x, mut buf, mut ready, mut y) = pair(&mut Rng::new(51));
    let err = publish_tma_store::interpret(&x, &mut buf, &mut ready, &mut y, 0).unwrap_err().to_string();
    for part in [
        "data race on global memory `buf` of device 1",
        "`copy_smem_to_gmem`",
        "program (0, 0, 0) of device 0",
        "program (0, 0, 0) of device 1",
        "`wait_smem_to_gmem(n, complete = true)`",
    ] {
        assert!(err.contains(part), "{part:?} not in: {err}");
    }
}

#[test]
fn a_store_after_the_signal_races_with_the_peers_read() {
    let (x, mut buf, mut ready, mut y) = pair(&mut Rng::new(52));
    let err = signal_before_store::interpret(&x, &mut buf, &mut ready, &mut y).unwrap_err().to_string();
    for part in ["data race on global memory `buf` of device 1", "`.store()`", "`.load()`", "`#[peers]` array"] {
        assert!(err.contains(part), "{part:?} not in: {err}");
    }
    // Without the detector the kernel runs (what it reads is up to the schedule).
    let (x, mut buf, mut ready, mut y) = pair(&mut Rng::new(52));
    tessel::with_race_check(false, || signal_before_store::interpret(&x, &mut buf, &mut ready, &mut y)).unwrap();
}

#[test]
fn a_rank_outside_the_group_is_an_error() {
    let buf = zeros::<f32>(2, [64, 64]);
    let mut y = zeros::<f32>(2, [64, 64]);
    let err = next_without_wrap::interpret(&buf, &mut y).unwrap_err().to_string();
    assert!(err.contains("`remote(buf, 2)`: rank 2 is outside the group of 2 devices"), "{err}");
    assert!(err.contains("device 1"), "{err}");
}

#[test]
fn a_group_takes_one_tensor_per_device_of_one_shape() {
    let mut rng = Rng::new(53);
    let x = normal(&mut rng, 2, [128, 64]);
    let (mut out, mut ready) = (zeros::<f32>(2, [256, 64]), counters(2, 2));
    let err = ring_all_gather::<2>::interpret(&x[..1], &mut out, &mut ready).unwrap_err();
    assert!(matches!(err, Error::RankCount { argument: "x", expected: 2, got: 1 }), "{err:?}");
    let mut wide = zeros::<f32>(2, [256, 64]);
    wide[1] = HostTensor::zeros([320, 64]).unwrap();
    let err = ring_all_gather::<2>::interpret(&x, &mut wide, &mut ready).unwrap_err();
    assert!(matches!(&err, Error::RankShape { argument: "out", rank: 1, .. }), "{err:?}");
    // One device's arguments are checked as a launch checks them.
    let short = vec![HostTensor::zeros([96, 64]).unwrap(), HostTensor::zeros([96, 64]).unwrap()];
    let err = ring_all_gather::<2>::interpret(&short, &mut out, &mut ready).unwrap_err();
    assert!(err.to_string().contains("M"), "{err}");
}
