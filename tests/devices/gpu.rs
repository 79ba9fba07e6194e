//! The collectives of `kernels` on a group of GPUs, against their f64 references and the
//! interpreter: on one GPU (a group of one, `W = 1`), and on two, which skips, saying so, where
//! fewer are present. `.gpu/tests/tessel-test --ignored --nocapture devices::gpu::`.

use super::kernels::*;
use crate::common::{assert_close, gpus, values, Rng};
use tessel::prelude::*;

/// `ring_all_gather::<W>` and `reduce_scatter::<W>` on `group`, each rank's result against the
/// reference (and the counters back at zero).
fn collectives_on(
    group: &DeviceGroup,
    launch_all_gather: impl Fn(
        &DeviceGroup,
        &[DeviceTensor<f32>],
        &mut SymmetricTensor<f32>,
        &mut SymmetricTensor<u32>,
    ) -> Result<()>,
    launch_reduce_scatter: impl Fn(
        &DeviceGroup,
        &[DeviceTensor<f32>],
        &mut SymmetricTensor<f32>,
        &mut SymmetricTensor<u32>,
        &mut [DeviceTensor<f32>],
    ) -> Result<()>,
) {
    let (w, tiles) = (group.len(), 3);
    let rows = 64 * tiles;
    let mut rng = Rng::new(70 + w as u64);

    let x: Vec<HostTensor<f32>> = (0..w).map(|_| rng.tensor(&[rows, 64], 1.0)).collect();
    let dx: Vec<DeviceTensor<f32>> =
        x.iter().enumerate().map(|(r, t)| DeviceTensor::from_host(group.device(r), t).unwrap()).collect();
    let mut out = SymmetricTensor::<f32>::zeros(group, [rows * w, 64]).unwrap();
    let mut ready = SymmetricTensor::<u32>::zeros(group, [tiles]).unwrap();
    launch_all_gather(group, &dx, &mut out, &mut ready).unwrap();
    group.synchronize().unwrap();
    let want = all_gather_ref(&x.iter().map(values).collect::<Vec<_>>());
    for (r, o) in out.to_host().unwrap().iter().enumerate() {
        assert_close(&format!("all-gather on {w} GPUs, rank {r}"), &values(o), &want, 0.0);
    }
    assert!(ready.to_host().unwrap().iter().all(|c| c.data().iter().all(|&v| v == 0)), "the counters balance");

    let xs: Vec<HostTensor<f32>> = (0..w).map(|_| rng.tensor(&[rows * w, 64], 1.0)).collect();
    let dxs: Vec<DeviceTensor<f32>> =
        xs.iter().enumerate().map(|(r, t)| DeviceTensor::from_host(group.device(r), t).unwrap()).collect();
    let mut parts = SymmetricTensor::<f32>::zeros(group, [rows * w, 64]).unwrap();
    let mut y: Vec<DeviceTensor<f32>> =
        (0..w).map(|r| DeviceTensor::zeros(group.device(r), [rows, 64]).unwrap()).collect();
    launch_reduce_scatter(group, &dxs, &mut parts, &mut ready, &mut y).unwrap();
    group.synchronize().unwrap();
    let refs: Vec<Vec<f64>> = xs.iter().map(values).collect();
    for (r, got) in y.iter().enumerate() {
        let want = reduce_scatter_ref(&refs, r, rows);
        assert_close(&format!("reduce-scatter on {w} GPUs, rank {r}"), &values(&got.to_host().unwrap()), &want, 1e-6);
    }
}

#[test]
#[ignore = "needs an NVIDIA GPU"]
fn collectives_on_a_group_of_one_gpu() {
    let group = gpus(1).expect("a GPU");
    collectives_on(&group, ring_all_gather::<1>::launch, reduce_scatter::<1>::launch);
}

#[test]
#[ignore = "needs an NVIDIA GPU"]
fn collectives_on_two_gpus() {
    let Some(group) = gpus(2) else { return };
    collectives_on(&group, ring_all_gather::<2>::launch, reduce_scatter::<2>::launch);
}

#[test]
#[ignore = "needs an NVIDIA GPU"]
fn a_group_of_the_wrong_size_or_arguments_launches_nothing() {
    let group = gpus(1).expect("a GPU");
    let x = vec![DeviceTensor::<f32>::zeros(group.device(0), [128, 64]).unwrap()];
    let mut out = SymmetricTensor::<f32>::zeros(&group, [128, 64]).unwrap();
    let mut ready = SymmetricTensor::<u32>::zeros(&group, [2]).unwrap();
    // A kernel of two devices on a group of one.
    let err = ring_all_gather::<2>::launch(&group, &x, &mut out, &mut ready).unwrap_err();
    assert!(err.to_string().contains("runs on 2 devices (`devices = 2`), but the group has 1"), "{err}");
    // A tensor per rank, and no more.
    let two: Vec<_> = (0..2).map(|_| DeviceTensor::<f32>::zeros(group.device(0), [128, 64]).unwrap()).collect();
    let err = ring_all_gather::<1>::launch(&group, &two, &mut out, &mut ready).unwrap_err();
    assert!(matches!(err, Error::RankCount { argument: "x", expected: 1, got: 2 }), "{err:?}");
}
