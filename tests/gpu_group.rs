//! GPU tests of device groups, symmetric tensors and NCCL collectives. The one-GPU tests run on any
//! Hopper machine (a group of one rank: its collectives are copies); the others need 2, 4 or 8
//! GPUs and print a skip line and pass where the machine has fewer. The NCCL tests also skip
//! without libnccl. `cargo test --test tessel gpu_group:: -- --ignored --nocapture`.

use crate::common::gpus;
use tessel::cudarc::driver::result as cuda;
use tessel::prelude::*;

/// NCCL collectives over `group`, or `None` (with a line saying why) without libnccl.
fn collectives(group: &DeviceGroup) -> Option<Collectives> {
    match Collectives::new(group) {
        Ok(nccl) => Some(nccl),
        Err(err @ (Error::NoNccl | Error::NcclTooOld { .. })) => {
            eprintln!("skipped: {err}");
            None
        }
        Err(err) => panic!("Collectives::new: {err}"),
    }
}

/// Rank `rank`'s data of `shape`: small integers, distinct per rank and element, exact in f32 sums.
fn rank_data(shape: &[usize], rank: usize) -> HostTensor<f32> {
    HostTensor::from_fn(shape.to_vec(), |i| (rank * 1000 + i.iter().sum::<usize>() % 97) as f32).unwrap()
}

fn per_rank(shape: &[usize], ranks: usize) -> Vec<HostTensor<f32>> {
    (0..ranks).map(|rank| rank_data(shape, rank)).collect()
}

fn upload(group: &DeviceGroup, hosts: &[HostTensor<f32>]) -> Vec<DeviceTensor<f32>> {
    hosts.iter().zip(group.devices()).map(|(host, device)| DeviceTensor::from_host(device, host).unwrap()).collect()
}

fn zeros(group: &DeviceGroup, shape: &[usize]) -> Vec<DeviceTensor<f32>> {
    group.devices().iter().map(|device| DeviceTensor::zeros(device, shape.to_vec()).unwrap()).collect()
}

fn download(tensors: &[DeviceTensor<f32>]) -> Vec<HostTensor<f32>> {
    tensors.iter().map(|t| t.to_host().unwrap()).collect()
}

/// The ranks' tensors one after another along axis 0.
fn concat(hosts: &[HostTensor<f32>]) -> Vec<f32> {
    hosts.iter().flat_map(|h| h.data().iter().copied()).collect()
}

/// The element-wise sum of the ranks' tensors.
fn sum(hosts: &[HostTensor<f32>]) -> Vec<f32> {
    (0..hosts[0].len()).map(|i| hosts.iter().map(|h| h.data()[i]).sum()).collect()
}

/// Checks a symmetric tensor's layout and host round trip on `group`.
fn symmetric_round_trip(group: &DeviceGroup) {
    let shape = [48, 40];
    let zero = SymmetricTensor::<f32>::zeros(group, shape).unwrap();
    assert_eq!((zero.shape(), zero.ranks(), zero.len()), (&shape[..], group.len(), 48 * 40));
    assert_eq!(zero.group_id(), group.id());
    for host in zero.to_host().unwrap() {
        assert!(host.data().iter().all(|&x| x == 0.0));
    }
    let data = per_rank(&shape, group.len());
    let mut t = SymmetricTensor::from_host(group, &data).unwrap();
    assert_eq!(t.to_host().unwrap(), data);
    let stride = t.rank_stride();
    assert!(stride >= (48 * 40 * 4) as u64 && stride.is_multiple_of(4096), "stride {stride}");
    for rank in 0..group.len() {
        assert_eq!(t.peer_ptr(rank), t.peer_ptr(0) + rank as u64 * stride);
    }
    let reversed: Vec<_> = data.iter().rev().cloned().collect();
    t.copy_from_host(&reversed).unwrap();
    assert_eq!(t.to_host().unwrap(), reversed);
    assert_eq!(t.multicast().unwrap().is_some(), group.supports_multicast());
    assert_eq!(t.multicast_ptr().is_some(), group.supports_multicast());
}

#[test]
#[ignore = "needs an NVIDIA GPU"]
fn a_symmetric_tensor_on_one_gpu() {
    let group = DeviceGroup::first(1).unwrap();
    assert_eq!((group.len(), group.device(0).ordinal()), (1, 0));
    symmetric_round_trip(&group);
    // An empty tensor still has an address and round-trips.
    let empty = SymmetricTensor::<bf16>::zeros(&group, [0, 8]).unwrap();
    assert!(empty.is_empty() && empty.peer_ptr(0) != 0);
    assert_eq!(empty.to_host().unwrap()[0].shape(), &[0, 8]);
}

#[test]
#[ignore = "needs an NVIDIA GPU"]
fn symmetric_tensor_arguments_are_checked() {
    let group = DeviceGroup::first(1).unwrap();
    let two = per_rank(&[4, 4], 2);
    assert!(matches!(SymmetricTensor::from_host(&group, &two), Err(Error::RankCount { expected: 1, got: 2, .. })));
    let mut t = SymmetricTensor::<f32>::zeros(&group, [4, 4]).unwrap();
    let wrong = per_rank(&[4, 8], 1);
    assert!(matches!(t.copy_from_host(&wrong), Err(Error::RankShape { rank: 0, .. })));
    assert!(matches!(t.copy_from_host(&[]), Err(Error::RankCount { expected: 1, got: 0, .. })));
    // Nothing was overwritten by the refused copies.
    assert!(t.to_host().unwrap()[0].data().iter().all(|&x| x == 0.0));
}

#[test]
#[ignore = "needs an NVIDIA GPU"]
fn symmetric_tensors_on_several_gpus() {
    for n in [2, 4, 8] {
        let Some(group) = gpus(n) else { return };
        symmetric_round_trip(&group);
    }
}

/// Every device reads every rank's copy and writes its own into a peer's: rank `r` copies rank
/// `r + 1`'s buffer into its own with its own copy engine, through the shared mapping.
#[test]
#[ignore = "needs an NVIDIA GPU"]
fn every_device_reaches_every_peer() {
    let Some(group) = gpus(2) else { return };
    let n = group.len();
    let data = per_rank(&[256, 64], n);
    let t = SymmetricTensor::from_host(&group, &data).unwrap();
    let bytes = t.len() * 4;
    let scratch = SymmetricTensor::<f32>::zeros(&group, [256, 64]).unwrap();
    for rank in 0..n {
        let device = group.device(rank);
        device.context().bind_to_thread().unwrap();
        // Safety: both ranges are mapped with read/write access for every device of the group and
        // hold `bytes`; the tensors outlive the copy, which the group's synchronize below waits for.
        unsafe {
            cuda::memcpy_dtod_async(
                scratch.peer_ptr(rank),
                t.peer_ptr((rank + 1) % n),
                bytes,
                device.stream().cu_stream(),
            )
        }
        .unwrap();
    }
    group.synchronize().unwrap();
    let got = scratch.to_host().unwrap();
    for rank in 0..n {
        assert_eq!(got[rank], data[(rank + 1) % n], "rank {rank}");
    }
}

#[test]
#[ignore = "needs an NVIDIA GPU"]
fn nccl_with_one_rank_copies() {
    let group = DeviceGroup::first(1).unwrap();
    let Some(nccl) = collectives(&group) else { return };
    assert_eq!(nccl.ranks(), 1);
    let data = per_rank(&[32, 16], 1);
    let send = upload(&group, &data);
    let mut recv = zeros(&group, &[32, 16]);
    nccl.all_gather(&send, &mut recv).unwrap();
    assert_eq!(download(&recv), data);
    let mut recv = zeros(&group, &[32, 16]);
    nccl.reduce_scatter(&send, &mut recv, ReduceOp::Sum).unwrap();
    assert_eq!(download(&recv), data);
    let mut recv = zeros(&group, &[32, 16]);
    nccl.all_reduce(&send, &mut recv, ReduceOp::Max).unwrap();
    assert_eq!(download(&recv), data);
    let mut buffers = upload(&group, &data);
    nccl.all_reduce_in_place(&mut buffers, ReduceOp::Sum).unwrap();
    assert_eq!(download(&buffers), data);
    let mut symmetric = SymmetricTensor::from_host(&group, &data).unwrap();
    nccl.all_reduce_symmetric(&mut symmetric, ReduceOp::Sum).unwrap();
    assert_eq!(symmetric.to_host().unwrap(), data);
}

#[test]
#[ignore = "needs an NVIDIA GPU"]
fn nccl_arguments_are_checked_before_nccl() {
    let group = DeviceGroup::first(1).unwrap();
    let Some(nccl) = collectives(&group) else { return };
    let send = upload(&group, &per_rank(&[32, 16], 1));
    let mut wrong = zeros(&group, &[16, 16]);
    assert!(matches!(nccl.all_gather(&send, &mut wrong), Err(Error::RankShape { rank: 0, .. })));
    assert!(matches!(nccl.all_reduce(&send, &mut [], ReduceOp::Sum), Err(Error::RankCount { got: 0, .. })));
    let shorts = vec![DeviceTensor::<i16>::zeros(group.device(0), [4]).unwrap()];
    let mut out = vec![DeviceTensor::<i16>::zeros(group.device(0), [4]).unwrap()];
    assert!(matches!(
        nccl.all_reduce(&shorts, &mut out, ReduceOp::Sum),
        Err(Error::InvalidArgument { argument: "all_reduce", .. })
    ));
    // A symmetric tensor of another group (another group over the same GPU).
    let other = DeviceGroup::first(1).unwrap();
    let mut foreign = SymmetricTensor::<f32>::zeros(&other, [4]).unwrap();
    assert!(matches!(nccl.all_reduce_symmetric(&mut foreign, ReduceOp::Sum), Err(Error::WrongGroup { .. })));
}

#[test]
#[ignore = "needs an NVIDIA GPU"]
fn nccl_collectives_on_several_gpus() {
    for n in [2, 4, 8] {
        let Some(group) = gpus(n) else { return };
        let Some(nccl) = collectives(&group) else { return };
        let part = [24, 16];
        let data = per_rank(&part, n);
        let send = upload(&group, &data);

        let mut gathered = zeros(&group, &[24 * n, 16]);
        nccl.all_gather(&send, &mut gathered).unwrap();
        for (rank, got) in download(&gathered).iter().enumerate() {
            assert_eq!(got.data(), concat(&data), "all_gather over {n}, rank {rank}");
        }

        let mut reduced = zeros(&group, &part);
        nccl.all_reduce(&send, &mut reduced, ReduceOp::Sum).unwrap();
        for (rank, got) in download(&reduced).iter().enumerate() {
            assert_eq!(got.data(), sum(&data), "all_reduce over {n}, rank {rank}");
        }

        // Reduce-scatter of the gathered tensors: rank r gets n times rank r's part.
        let mut scattered = zeros(&group, &part);
        nccl.reduce_scatter(&gathered, &mut scattered, ReduceOp::Sum).unwrap();
        for (rank, got) in download(&scattered).iter().enumerate() {
            let want: Vec<f32> = data[rank].data().iter().map(|x| x * n as f32).collect();
            assert_eq!(got.data(), want, "reduce_scatter over {n}, rank {rank}");
        }

        let mut symmetric = SymmetricTensor::from_host(&group, &data).unwrap();
        nccl.all_reduce_symmetric(&mut symmetric, ReduceOp::Max).unwrap();
        let max = data.last().unwrap(); // The last rank's values are the largest.
        assert!(symmetric.to_host().unwrap().iter().all(|got| got == max), "all_reduce_symmetric over {n}");
    }
}

/// Shapes that differ between ranks, tensors on the wrong rank's device and a wrong number of
/// tensors are errors before NCCL is called, so no rank waits for a peer that never comes.
#[test]
#[ignore = "needs an NVIDIA GPU"]
fn mismatched_ranks_are_errors_not_hangs() {
    let Some(group) = gpus(2) else { return };
    let Some(nccl) = collectives(&group) else { return };
    let mut send = upload(&group, &per_rank(&[8, 8], 2));
    send[1] = DeviceTensor::zeros(group.device(1), [8, 4]).unwrap();
    let mut recv = zeros(&group, &[8, 8]);
    let err = nccl.all_reduce(&send, &mut recv, ReduceOp::Sum).unwrap_err();
    assert!(matches!(err, Error::RankShape { rank: 1, .. }), "{err}");

    let send = upload(&group, &per_rank(&[8, 8], 2));
    let mut swapped = zeros(&group, &[16, 8]);
    swapped.swap(0, 1);
    let err = nccl.all_gather(&send, &mut swapped).unwrap_err();
    assert!(matches!(err, Error::RankDevice { rank: 0, tensor_device: 1, rank_device: 0, .. }), "{err}");

    let mut odd = zeros(&group, &[3, 8]);
    let three = upload(&group, &per_rank(&[7, 8], 2));
    let err = nccl.reduce_scatter(&three, &mut odd, ReduceOp::Sum).unwrap_err();
    assert!(matches!(err, Error::InvalidArgument { argument: "reduce_scatter send", .. }), "{err}");

    let err = nccl.all_reduce(&send[..1], &mut recv, ReduceOp::Sum).unwrap_err();
    assert!(matches!(err, Error::RankCount { expected: 2, got: 1, .. }), "{err}");
    // The communicators still work after the refused calls.
    let mut out = zeros(&group, &[8, 8]);
    nccl.all_reduce(&send, &mut out, ReduceOp::Sum).unwrap();
    assert_eq!(download(&out)[0].data(), sum(&download(&send)));
}
