//! Device groups, symmetric tensors and collectives where no GPU is needed: asking for more GPUs
//! than a machine has and asking for NCCL are answers or clear errors on every machine, never a
//! panic or a hang. The GPU side is `gpu_group`.

use tessel::prelude::*;

/// No machine has 64 GPUs in one process's view: the answer is "no driver" (CI) or "too few".
#[test]
fn too_many_gpus_is_a_clear_error() {
    match DeviceGroup::first(64) {
        Err(Error::NoDriver) => {}
        Err(Error::NotEnoughDevices { needed, found }) => {
            assert_eq!(needed, 64);
            let text = Error::NotEnoughDevices { needed, found }.to_string();
            assert_eq!(text, format!("this needs 64 GPUs, but the driver sees {found}"));
        }
        other => panic!("expected NoDriver or NotEnoughDevices, got {other:?}"),
    }
}

/// Argument errors come before the driver is asked anything.
#[test]
fn group_arguments_are_checked_first() {
    for ordinals in [&[][..], &[0, 1, 0][..]] {
        match DeviceGroup::new(ordinals) {
            Err(Error::InvalidArgument { argument: "ordinals", .. }) => {}
            other => panic!("{ordinals:?}: expected InvalidArgument, got {other:?}"),
        }
    }
    match DeviceGroup::first(0) {
        Err(Error::InvalidArgument { argument: "ordinals", .. }) => {}
        other => panic!("expected InvalidArgument, got {other:?}"),
    }
}

/// NCCL is either there (2.13 or newer) or a clear error saying what to install or upgrade.
#[test]
fn nccl_is_present_or_a_clear_error() {
    match tessel::nccl_version() {
        Ok((major, minor, _)) => assert!((major, minor) >= (2, 13), "{major}.{minor}"),
        Err(Error::NoNccl) => {
            let text = Error::NoNccl.to_string();
            assert!(text.contains("libnccl.so.2") && text.contains("install NCCL"), "{text}");
        }
        Err(err @ Error::NcclTooOld { .. }) => assert!(err.to_string().contains("2.13.0 or newer"), "{err}"),
        Err(other) => panic!("expected a version, NoNccl or NcclTooOld, got {other}"),
    }
}

/// The messages of the per-rank argument errors name the argument, the rank and the rule.
#[test]
fn per_rank_errors_read_well() {
    let err = Error::RankShape { argument: "all_gather send", rank: 1, expected: vec![128, 64], got: vec![64, 64] };
    assert_eq!(
        err.to_string(),
        "`all_gather send`: rank 1's tensor has shape [64, 64], but every rank's must be [128, 64]"
    );
    let err = Error::RankDevice { argument: "all_reduce recv", rank: 0, tensor_device: 1, rank_device: 0 };
    assert_eq!(
        err.to_string(),
        "`all_reduce recv`: rank 0's tensor lives on device 1, but rank 0 of the group is device 0"
    );
    let err = Error::WrongGroup { argument: "buf" };
    assert_eq!(err.to_string(), "`buf` was allocated for another device group than the one it is used with");
}
