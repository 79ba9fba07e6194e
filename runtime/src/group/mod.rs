//! Several GPUs driven by one process: device groups, symmetric memory and NCCL collectives.
//!
//! - [`DeviceGroup`]: the devices of one process with ranks `0..len`, every pair able to reach
//!   each other's memory;
//! - [`SymmetricTensor`]: one buffer of the same shape on every rank, allocated with CUDA virtual
//!   memory management so that every device of the group can read and write every rank's buffer
//!   at [`SymmetricTensor::peer_ptr`]; on NVSwitch systems also a multicast address
//!   ([`SymmetricTensor::multicast`]);
//! - [`Collectives`]: NCCL all-gather, reduce-scatter and all-reduce over per-rank
//!   [`DeviceTensor`](crate::DeviceTensor)s, with every argument checked before NCCL is called.
//!
//! The raw driver calls are in `driver::vmm` and `driver::multicast`, the raw NCCL calls in
//! [`nccl`]'s `sys` module; everything here is safe code over them.

mod allocation;
mod check;
mod device_group;
mod multicast;
mod nccl;
mod symmetric;

pub use device_group::DeviceGroup;
pub use nccl::{nccl_version, Collectives, ReduceOp};
pub use symmetric::SymmetricTensor;

pub(crate) use nccl::{nccl_version_text, MIN_NCCL_VERSION};
