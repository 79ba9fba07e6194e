//! [`DeviceGroup`]: the GPUs one process drives together.

use std::sync::atomic::{AtomicU64, Ordering};

use crate::device::{visible_devices, Device};
use crate::driver::{multicast, vmm};
use crate::element::Element;
use crate::error::{Error, Result};
use crate::tensor::DeviceTensor;

use super::{check, SymmetricTensor};

/// Source of [`DeviceGroup::id`]: unique for the life of the process.
static NEXT_GROUP_ID: AtomicU64 = AtomicU64::new(1);

/// GPUs driven by one process, with ranks `0..len`: rank `r` is [`device(r)`](Self::device).
/// Every device of a group can reach every other's [`SymmetricTensor`](crate::SymmetricTensor)s.
///
/// Opening a group opens each device as [`Device::new`] does (its primary context and default
/// stream) and checks, before anything is allocated, that each device supports CUDA virtual
/// memory management and that every pair can access each other's memory
/// (`cuDeviceCanAccessPeer`). Cloning is cheap and keeps the group's identity ([`id`](Self::id)).
///
/// ```no_run
/// use tessel_runtime::DeviceGroup;
///
/// let group = DeviceGroup::first(2)?; // GPUs 0 and 1, or Error::NotEnoughDevices
/// for (rank, device) in group.devices().iter().enumerate() {
///     println!("rank {rank}: GPU {} ({})", device.ordinal(), device.name());
/// }
/// # Ok::<(), tessel_runtime::Error>(())
/// ```
#[derive(Debug, Clone)]
pub struct DeviceGroup {
    devices: Vec<Device>,
    id: u64,
    multicast: bool,
}

impl DeviceGroup {
    /// The devices with these ordinals, rank `r` being `ordinals[r]`.
    ///
    /// Fails with [`Error::InvalidArgument`] for an empty list or an ordinal listed twice,
    /// [`Error::NoDriver`] without an NVIDIA driver, [`Error::NoDevice`] for an ordinal the driver
    /// does not see, [`Error::UnsupportedDevice`] for a GPU other than sm_90, and
    /// [`Error::NoPeerAccess`] when two of the devices cannot reach each other.
    pub fn new(ordinals: &[usize]) -> Result<DeviceGroup> {
        check::ordinals(ordinals)?;
        let devices = ordinals.iter().map(|&ordinal| Device::new(ordinal)).collect::<Result<Vec<_>>>()?;
        Self::from_devices(devices)
    }

    /// GPUs `0..n`. Fails with [`Error::NotEnoughDevices`] ("this needs 2 GPUs, but the driver sees
    /// 1") when the driver sees fewer than `n`, otherwise as [`new`](Self::new).
    pub fn first(n: usize) -> Result<DeviceGroup> {
        let ordinals: Vec<usize> = (0..n).collect();
        check::ordinals(&ordinals)?;
        let found = visible_devices()?;
        if found < n {
            return Err(Error::NotEnoughDevices { needed: n, found });
        }
        Self::new(&ordinals)
    }

    /// A group of devices already opened (e.g. on streams of your own, [`Device::from_stream`]),
    /// rank `r` being `devices[r]`. Checked as [`new`](Self::new) checks ordinals.
    pub fn from_devices(devices: Vec<Device>) -> Result<DeviceGroup> {
        let ordinals: Vec<usize> = devices.iter().map(Device::ordinal).collect();
        check::ordinals(&ordinals)?;
        check_memory_access(&devices)?;
        let multicast = multicast_everywhere(&devices)?;
        Ok(DeviceGroup { devices, id: NEXT_GROUP_ID.fetch_add(1, Ordering::Relaxed), multicast })
    }

    /// The number of ranks (devices).
    pub fn len(&self) -> usize {
        self.devices.len()
    }

    /// Always `false`: a group has at least one device.
    pub fn is_empty(&self) -> bool {
        self.devices.is_empty()
    }

    /// The device of rank `rank`.
    ///
    /// # Panics
    /// If `rank >= self.len()`, as indexing a slice does.
    pub fn device(&self, rank: usize) -> &Device {
        &self.devices[rank]
    }

    /// Every rank's device, in rank order.
    pub fn devices(&self) -> &[Device] {
        &self.devices
    }

    /// Blocks until the work queued on every rank's stream has finished, and reports the first
    /// error (e.g. a kernel's illegal address) after waiting for all of them.
    pub fn synchronize(&self) -> Result<()> {
        let results: Vec<Result<()>> = self.devices.iter().map(Device::synchronize).collect();
        results.into_iter().collect()
    }

    /// A process-wide unique identity, the same for every clone, with which operations check that
    /// a [`SymmetricTensor`](crate::SymmetricTensor) belongs to this group.
    pub fn id(&self) -> u64 {
        self.id
    }

    /// Checks a per-rank tensor argument, as collectives and multi-device launches do before
    /// anything is queued: one tensor per rank ([`Error::RankCount`]), all of rank 0's shape
    /// ([`Error::RankShape`]), rank `r`'s on [`device(r)`](Self::device) ([`Error::RankDevice`]).
    /// Returns the shape. `argument` names the argument in the error.
    pub fn check_per_rank<'a, T: Element>(
        &self,
        argument: &'static str,
        tensors: &'a [DeviceTensor<T>],
    ) -> Result<&'a [usize]> {
        let shapes: Vec<&[usize]> = tensors.iter().map(DeviceTensor::shape).collect();
        let shape = check::uniform_shapes(argument, self.len(), &shapes)?;
        self.check_devices(argument, tensors)?;
        Ok(shape)
    }

    /// Checks that `tensor` was allocated for this group ([`Error::WrongGroup`] otherwise).
    pub fn check_symmetric<T: Element>(&self, argument: &'static str, tensor: &SymmetricTensor<T>) -> Result<()> {
        if tensor.group_id() == self.id {
            return Ok(());
        }
        Err(Error::WrongGroup { argument })
    }

    /// Rank `r`'s tensor lives in the context of device `r` (of at most `len` tensors).
    pub(super) fn check_devices<T: Element>(&self, argument: &'static str, tensors: &[DeviceTensor<T>]) -> Result<()> {
        for (rank, (tensor, device)) in tensors.iter().zip(&self.devices).enumerate() {
            if tensor.stream().context() != device.context() {
                return Err(Error::RankDevice {
                    argument,
                    rank,
                    tensor_device: tensor.ordinal(),
                    rank_device: device.ordinal(),
                });
            }
        }
        Ok(())
    }

    /// Whether every device supports multicast objects (`CU_DEVICE_ATTRIBUTE_MULTICAST_SUPPORTED`:
    /// NVLink SHARP, on GPUs connected through NVSwitches, such as an HGX H100/H200 8-GPU board;
    /// not a single GPU, nor GPUs bridged pairwise). See
    /// [`SymmetricTensor::multicast`](crate::SymmetricTensor::multicast).
    pub fn supports_multicast(&self) -> bool {
        self.multicast
    }
}

/// Every device can map memory with `cuMemCreate`/`cuMemMap`, and every ordered pair of distinct
/// devices can access each other (Driver API `cuDeviceCanAccessPeer`); [`Error::NoPeerAccess`]
/// names the first pair that cannot.
fn check_memory_access(devices: &[Device]) -> Result<()> {
    let handle = |device: &Device| device.context().cu_device();
    for device in devices {
        if !vmm::vmm_supported(handle(device))? {
            return Err(Error::NoPeerAccess { from: device.ordinal(), to: device.ordinal() });
        }
    }
    for from in devices {
        for to in devices.iter().filter(|to| to.ordinal() != from.ordinal()) {
            if !vmm::can_access_peer(handle(from), handle(to))? {
                return Err(Error::NoPeerAccess { from: from.ordinal(), to: to.ordinal() });
            }
        }
    }
    Ok(())
}

/// Whether every device reports multicast support.
fn multicast_everywhere(devices: &[Device]) -> Result<bool> {
    for device in devices {
        if !multicast::supported(device.context().cu_device())? {
            return Ok(false);
        }
    }
    Ok(true)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::driver;

    /// Without an NVIDIA driver (as on CI machines), opening a group is an error, not a panic,
    /// and the argument checks come first.
    #[test]
    fn without_a_driver_groups_are_errors() {
        if driver::library_present() {
            return; // A GPU machine: the facade's GPU tests cover groups.
        }
        assert!(matches!(DeviceGroup::first(2), Err(Error::NoDriver)));
        assert!(matches!(DeviceGroup::new(&[0, 1]), Err(Error::NoDriver)));
        assert!(matches!(DeviceGroup::new(&[]), Err(Error::InvalidArgument { argument: "ordinals", .. })));
        assert!(matches!(DeviceGroup::new(&[1, 1]), Err(Error::InvalidArgument { argument: "ordinals", .. })));
        assert!(matches!(DeviceGroup::from_devices(Vec::new()), Err(Error::InvalidArgument { .. })));
        assert!(matches!(DeviceGroup::first(0), Err(Error::InvalidArgument { argument: "ordinals", .. })));
    }

    #[test]
    fn group_messages_are_plain() {
        let text = Error::NotEnoughDevices { needed: 2, found: 1 }.to_string();
        assert_eq!(text, "this needs 2 GPUs, but the driver sees 1");
        let text = Error::NoPeerAccess { from: 0, to: 3 }.to_string();
        assert!(text.starts_with("device 0 cannot access the memory of device 3"), "{text}");
        let text = Error::NoPeerAccess { from: 2, to: 2 }.to_string();
        assert!(text.contains("virtual memory management"), "{text}");
    }
}
