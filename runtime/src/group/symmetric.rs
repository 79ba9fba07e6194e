//! [`SymmetricTensor`]: a tensor of the same shape on every rank of a group, each rank's copy
//! reachable from every device.

use std::fmt;
use std::marker::PhantomData;

use crate::driver::vmm;
use crate::element::Element;
use crate::error::{Error, Result};
use crate::tensor::{element_count, HostTensor};

use super::allocation::Allocation;
use super::check;
use super::multicast::MulticastMapping;
use super::DeviceGroup;

/// One dense, row-major buffer of `shape` per rank of a [`DeviceGroup`], each reachable from every
/// device of the group at [`peer_ptr(rank)`](Self::peer_ptr): the same address on every device,
/// since one process has one unified address space.
///
/// This is what a kernel's `#[peers]` parameter takes: rank `r`'s kernel works on its own copy
/// (`peer_ptr(r)`) and reads or writes a peer's copy with `remote(..)`. The memory comes from CUDA
/// virtual memory management (`cuMemCreate` on each rank's device, `cuMemMap` into one reserved
/// range, `cuMemSetAccess` granting every device of the group read and write), so peer accesses
/// go over NVLink (or PCIe) without staging. Each rank's copy is padded to whole allocation
/// granules (2 MiB on Hopper); the copies lie `rank_stride()` bytes apart:
/// `peer_ptr(r) == peer_ptr(0) + r * rank_stride()`.
///
/// Host copies wait for all work queued on every device of the group first. Kernels that touch
/// the tensor are not tracked as [`DeviceTensor`](crate::DeviceTensor)s are: work on one rank's
/// stream runs in order, and work on different ranks is ordered by the kernels' own cross-device
/// semaphores or by [`DeviceGroup::synchronize`]. Dropping the tensor waits for every rank's
/// stream before unmapping the memory.
///
/// ```no_run
/// use tessel_runtime::{DeviceGroup, HostTensor, SymmetricTensor};
///
/// let group = DeviceGroup::first(2)?;
/// let mut buf = SymmetricTensor::<f32>::zeros(&group, [256, 64])?;
/// let filled: Vec<_> = (0..group.len())
///     .map(|rank| HostTensor::from_fn([256, 64], |_| rank as f32))
///     .collect::<Result<_, _>>()?;
/// buf.copy_from_host(&filled)?;
/// // Every device may read and write rank 1's copy at this address:
/// let _rank1 = buf.peer_ptr(1);
/// assert_eq!(buf.to_host()?, filled);
/// # Ok::<(), tessel_runtime::Error>(())
/// ```
pub struct SymmetricTensor<T: Element> {
    // Declared before `memory`: fields drop in order, and the multicast object must let go of the
    // memory before it is released.
    multicast: Option<MulticastMapping>,
    memory: Allocation,
    group: DeviceGroup,
    shape: Vec<usize>,
    len: usize,
    _element: PhantomData<T>,
}

impl<T: Element> SymmetricTensor<T> {
    /// A tensor of `shape` on every rank of `group`, filled with zeros.
    pub fn zeros(group: &DeviceGroup, shape: impl Into<Vec<usize>>) -> Result<Self> {
        let tensor = Self::allocate(group, shape.into())?;
        for (rank, device) in group.devices().iter().enumerate() {
            let stream = device.stream().cu_stream();
            vmm::zero_async(device.context(), stream, tensor.peer_ptr(rank), tensor.memory.stride())?;
        }
        // A peer may read this rank's copy before this rank's stream reaches anything else.
        group.synchronize()?;
        Ok(tensor)
    }

    /// A tensor holding `per_rank[r]` on rank `r`: one host tensor per rank, all of one shape
    /// ([`Error::RankCount`], [`Error::RankShape`] otherwise, before anything is allocated).
    pub fn from_host(group: &DeviceGroup, per_rank: &[HostTensor<T>]) -> Result<Self> {
        let shapes: Vec<&[usize]> = per_rank.iter().map(HostTensor::shape).collect();
        let shape = check::uniform_shapes("SymmetricTensor::from_host", group.len(), &shapes)?;
        let mut tensor = Self::allocate(group, shape.to_vec())?;
        tensor.write_ranks(per_rank)?;
        Ok(tensor)
    }

    /// Overwrites every rank's copy with `per_rank[r]`, one host tensor per rank, each of the
    /// tensor's shape (checked before anything is copied). Waits for all work queued on the group
    /// first, and returns once the data is on the devices.
    pub fn copy_from_host(&mut self, per_rank: &[HostTensor<T>]) -> Result<()> {
        let argument = "SymmetricTensor::copy_from_host";
        check::rank_count(argument, self.ranks(), per_rank.len())?;
        check::rank_shapes(argument, &self.shape, per_rank.iter().map(HostTensor::shape))?;
        self.group.synchronize()?;
        self.write_ranks(per_rank)
    }

    /// Every rank's copy, in rank order. Waits for all work queued on every device of the group
    /// first, since a peer's kernel may be writing this rank's copy; so this is also where an
    /// asynchronous kernel fault surfaces.
    pub fn to_host(&self) -> Result<Vec<HostTensor<T>>> {
        self.group.synchronize()?;
        (0..self.ranks())
            .map(|rank| {
                let device = self.group.device(rank);
                let mut data = vec![T::default(); self.len];
                if self.is_empty() {
                    return HostTensor::new(self.shape.clone(), data);
                }
                vmm::copy_to_host(device.context(), device.stream().cu_stream(), self.peer_ptr(rank), &mut data)?;
                HostTensor::new(self.shape.clone(), data)
            })
            .collect()
    }

    /// The shape of each rank's copy, outermost axis first.
    pub fn shape(&self) -> &[usize] {
        &self.shape
    }

    /// The number of elements of each rank's copy.
    pub fn len(&self) -> usize {
        self.len
    }

    /// Whether each rank's copy has no elements.
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// The number of ranks: the group's [`len`](DeviceGroup::len).
    pub fn ranks(&self) -> usize {
        self.group.len()
    }

    /// The [`id`](DeviceGroup::id) of the group the tensor was allocated for.
    pub fn group_id(&self) -> u64 {
        self.group.id()
    }

    /// The group the tensor was allocated for.
    pub fn group(&self) -> &DeviceGroup {
        &self.group
    }

    /// The device address of rank `rank`'s copy, valid on every device of the group.
    ///
    /// # Panics
    /// If `rank >= self.ranks()`.
    pub fn peer_ptr(&self, rank: usize) -> u64 {
        assert!(rank < self.ranks(), "rank {rank} of a symmetric tensor over {} ranks", self.ranks());
        self.memory.peer_ptr(rank)
    }

    /// The distance in bytes between two consecutive ranks' copies (each copy's size rounded up to
    /// whole allocation granules).
    pub fn rank_stride(&self) -> u64 {
        self.memory.stride() as u64
    }

    /// The multicast address of the tensor, creating the multicast object on the first call:
    /// `Some(address)` when every device of the group supports multicast
    /// ([`DeviceGroup::supports_multicast`]: NVLink SHARP through NVSwitches), `None` otherwise
    /// (a single H200, or GPUs without NVSwitch), in which case kernels use
    /// [`peer_ptr`](Self::peer_ptr) for each peer instead.
    ///
    /// The address is the same on every device. PTX `multimem` instructions on it act on every
    /// rank's copy at once: `multimem.st` writes all copies, `multimem.ld_reduce` loads the
    /// reduction (e.g. the sum) of all copies, `multimem.red` reduces into all copies (PTX ISA,
    /// "Data Movement and Conversion Instructions: multimem"). Any other access to it (`ld`,
    /// `st`, TMA) is undefined behaviour. tessel's language has no `multimem` operation yet, so
    /// today the address serves kernels written in PTX or CUDA C++ sharing the buffer.
    pub fn multicast(&mut self) -> Result<Option<u64>> {
        if !self.group.supports_multicast() {
            return Ok(None);
        }
        if self.multicast.is_none() {
            self.multicast = Some(MulticastMapping::new(&self.memory)?);
        }
        Ok(self.multicast_ptr())
    }

    /// The multicast address, if [`multicast`](Self::multicast) created one.
    pub fn multicast_ptr(&self) -> Option<u64> {
        self.multicast.as_ref().map(MulticastMapping::address)
    }

    /// Memory for `shape` on every rank of `group`, contents undefined.
    fn allocate(group: &DeviceGroup, shape: Vec<usize>) -> Result<Self> {
        let len = element_count(&shape)?;
        let bytes = len.checked_mul(T::BYTES).ok_or_else(|| Error::ShapeTooLarge { shape: shape.clone() })?;
        let memory = Allocation::new(group, bytes)?;
        Ok(SymmetricTensor { multicast: None, memory, group: group.clone(), shape, len, _element: PhantomData })
    }

    /// Copies `per_rank[r]` (already checked) to rank `r`'s copy.
    fn write_ranks(&mut self, per_rank: &[HostTensor<T>]) -> Result<()> {
        if self.is_empty() {
            return Ok(());
        }
        for (rank, host) in per_rank.iter().enumerate() {
            let device = self.group.device(rank);
            vmm::copy_to_device(device.context(), device.stream().cu_stream(), host.data(), self.peer_ptr(rank))?;
        }
        Ok(())
    }
}

impl<T: Element> fmt::Debug for SymmetricTensor<T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("SymmetricTensor")
            .field("dtype", &T::DTYPE)
            .field("shape", &self.shape)
            .field("ranks", &self.ranks())
            .field("group", &self.group.id())
            .field("multicast", &self.multicast_ptr().is_some())
            .finish()
    }
}
