//! [`Collectives`]: NCCL communicators for every rank of a [`DeviceGroup`], driven from one thread.

use std::ffi::{c_int, c_void};

use cudarc::nccl::result::{self, NcclError, NcclStatus};
use cudarc::nccl::sys::{self, ncclComm_t, ncclRedOp_t};

use crate::element::Element;
use crate::error::{Error, Result};
use crate::group::{check, DeviceGroup, SymmetricTensor};
use crate::tensor::{AccessGuard, DeviceTensor};

use super::dtype;
use super::library::{loaded_version, nccl_error};

/// How a reduction combines the ranks' values (`ncclRedOp_t`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ReduceOp {
    /// The sum.
    Sum,
    /// The product.
    Prod,
    /// The minimum.
    Min,
    /// The maximum.
    Max,
    /// The mean: the sum divided by the number of ranks.
    Avg,
}

impl ReduceOp {
    fn nccl(self) -> ncclRedOp_t {
        match self {
            ReduceOp::Sum => ncclRedOp_t::ncclSum,
            ReduceOp::Prod => ncclRedOp_t::ncclProd,
            ReduceOp::Min => ncclRedOp_t::ncclMin,
            ReduceOp::Max => ncclRedOp_t::ncclMax,
            ReduceOp::Avg => ncclRedOp_t::ncclAvg,
        }
    }
}

/// NCCL collectives over a [`DeviceGroup`]: one communicator per rank (`ncclCommInitAll`), all
/// driven by this process.
///
/// Each operation takes one tensor per rank (rank `r`'s on `group.device(r)`), checks every
/// rank's arguments (counts, shapes, devices, element type) before calling NCCL, then queues the
/// rank's part on its device's stream, all ranks in one NCCL group (`ncclGroupStart` ..
/// `ncclGroupEnd`), so no rank waits for a peer that was never queued. Operations are asynchronous,
/// as kernel launches are: `to_host` or [`DeviceGroup::synchronize`] waits for them.
///
/// Needs the NCCL library (`libnccl.so.2`, 2.13 or newer), loaded at run time:
/// [`Error::NoNccl`] when it is missing. A communicator is used from one thread at a time
/// (`Send`, not `Sync`), as NCCL requires.
///
/// ```no_run
/// use tessel_runtime::{Collectives, DeviceGroup, DeviceTensor, HostTensor, ReduceOp};
///
/// let group = DeviceGroup::first(2)?;
/// let nccl = Collectives::new(&group)?;
/// // Each rank holds 128 rows; after the all-gather every rank holds all 256.
/// let mut mine = Vec::new();
/// let mut all = Vec::new();
/// for (rank, device) in group.devices().iter().enumerate() {
///     let rows = HostTensor::from_fn([128, 64], |_| rank as f32)?;
///     mine.push(DeviceTensor::from_host(device, &rows)?);
///     all.push(DeviceTensor::<f32>::zeros(device, [256, 64])?);
/// }
/// nccl.all_gather(&mine, &mut all)?;
/// nccl.all_reduce_in_place(&mut mine, ReduceOp::Sum)?; // every element is now 0 + 1
/// assert_eq!(all[1].to_host()?.get(&[200, 0]), Some(1.0));
/// # Ok::<(), tessel_runtime::Error>(())
/// ```
pub struct Collectives {
    group: DeviceGroup,
    /// Rank `r`'s communicator, for `group.device(r)`.
    comms: Vec<ncclComm_t>,
}

// Safety: an NCCL communicator may be used from any thread, one thread at a time (NCCL user
// guide, "Thread Safety"); `Collectives` is not `Sync`, so `&self` methods never run concurrently.
unsafe impl Send for Collectives {}

impl Collectives {
    /// One communicator per rank of `group`. Fails with [`Error::NoNccl`] (before any NCCL call)
    /// when NCCL cannot be loaded, [`Error::NcclTooOld`], or [`Error::Nccl`] when NCCL cannot set
    /// up the communicators.
    pub fn new(group: &DeviceGroup) -> Result<Collectives> {
        loaded_version()?;
        let ordinals = group
            .devices()
            .iter()
            .map(|device| c_int::try_from(device.ordinal()))
            .collect::<std::result::Result<Vec<c_int>, _>>()
            .map_err(|_| Error::Internal("a device ordinal does not fit in a C int".into()))?;
        let ranks = c_int::try_from(ordinals.len())
            .map_err(|_| Error::Internal("the group has more ranks than fit in a C int".into()))?;
        let mut comms = vec![std::ptr::null_mut(); ordinals.len()];
        // Safety: `comms` has room for one communicator per device of `ordinals`, which holds
        // `ranks` distinct, visible device ordinals (the group checked them). NCCL numbers devices
        // as the driver does. On failure the array is not used.
        unsafe { result::comm_init_all(comms.as_mut_ptr(), ranks, ordinals.as_ptr()) }
            .map_err(|err| nccl_error("ncclCommInitAll", err, None))?;
        Ok(Collectives { group: group.clone(), comms })
    }

    /// The group the communicators span.
    pub fn group(&self) -> &DeviceGroup {
        &self.group
    }

    /// The number of ranks.
    pub fn ranks(&self) -> usize {
        self.comms.len()
    }

    /// All-gather: every rank receives every rank's `send`, rank after rank along axis 0.
    ///
    /// Every `send[r]` has one shape `[d0, d1, ..]`, every `recv[r]` the shape `[ranks * d0, d1,
    /// ..]` (`[ranks]` for scalars); rank `r`'s part of each `recv` is rows `r * d0 .. (r + 1) *
    /// d0` (`ncclAllGather`).
    pub fn all_gather<T: Element>(&self, send: &[DeviceTensor<T>], recv: &mut [DeviceTensor<T>]) -> Result<()> {
        let dtype = dtype::of::<T>("all_gather")?;
        let shape = self.group.check_per_rank("all_gather send", send)?;
        let gathered = check::gathered_shape(shape, self.ranks())?;
        self.check_outputs("all_gather recv", recv, &gathered)?;
        let count = send[0].len();
        self.with_buffers(send, recv, |src, dst| {
            self.run("ncclAllGather", count, |rank, comm, stream| {
                // Safety: `src[rank]` holds `count` elements of `dtype` and `dst[rank]` ranks times as
                // many, both on rank `rank`'s device (checked), kept alive with their guards.
                unsafe { result::all_gather(src[rank], dst[rank], count, dtype, comm, stream) }
            })
        })
    }

    /// Reduce-scatter: the ranks' `send` tensors are combined element-wise with `op`, and rank `r`
    /// receives part `r` of the result along axis 0.
    ///
    /// Every `send[r]` has one shape `[d0, d1, ..]` with `d0` a multiple of the number of ranks, every
    /// `recv[r]` the shape `[d0 / ranks, d1, ..]` (`ncclReduceScatter`).
    pub fn reduce_scatter<T: Element>(
        &self,
        send: &[DeviceTensor<T>],
        recv: &mut [DeviceTensor<T>],
        op: ReduceOp,
    ) -> Result<()> {
        let dtype = dtype::of::<T>("reduce_scatter")?;
        let shape = self.group.check_per_rank("reduce_scatter send", send)?;
        let part = check::scattered_shape("reduce_scatter send", shape, self.ranks())?;
        self.check_outputs("reduce_scatter recv", recv, &part)?;
        let count = recv[0].len();
        self.with_buffers(send, recv, |src, dst| {
            self.run("ncclReduceScatter", count, |rank, comm, stream| {
                // Safety: `dst[rank]` holds `count` elements and `src[rank]` ranks times as many,
                // as in `all_gather`.
                unsafe { result::reduce_scatter(src[rank], dst[rank], count, dtype, op.nccl(), comm, stream) }
            })
        })
    }

    /// All-reduce: every rank receives the element-wise combination with `op` of all ranks' `send`
    /// tensors. `send` and `recv` tensors all have one shape (`ncclAllReduce`).
    pub fn all_reduce<T: Element>(
        &self,
        send: &[DeviceTensor<T>],
        recv: &mut [DeviceTensor<T>],
        op: ReduceOp,
    ) -> Result<()> {
        let dtype = dtype::of::<T>("all_reduce")?;
        let shape = self.group.check_per_rank("all_reduce send", send)?.to_vec();
        self.check_outputs("all_reduce recv", recv, &shape)?;
        let count = send[0].len();
        self.with_buffers(send, recv, |src, dst| {
            self.run("ncclAllReduce", count, |rank, comm, stream| {
                // Safety: both hold `count` elements, as in `all_gather`.
                unsafe { result::all_reduce(src[rank], dst[rank], count, dtype, op.nccl(), comm, stream) }
            })
        })
    }

    /// All-reduce in place: every rank's tensor is replaced by the combination of all ranks'.
    pub fn all_reduce_in_place<T: Element>(&self, buffers: &mut [DeviceTensor<T>], op: ReduceOp) -> Result<()> {
        let dtype = dtype::of::<T>("all_reduce_in_place")?;
        self.group.check_per_rank("all_reduce_in_place", buffers)?;
        let count = buffers[0].len();
        let (addresses, _guards) = self.write_addresses(buffers);
        self.run("ncclAllReduce", count, |rank, comm, stream| {
            let buffer = addresses[rank] as *mut c_void;
            // Safety: the buffer holds `count` elements on rank `rank`'s device, guarded; NCCL
            // allows the same buffer as source and destination.
            unsafe { result::all_reduce(buffer, buffer, count, dtype, op.nccl(), comm, stream) }
        })
    }

    /// All-reduce of a symmetric tensor in place: every rank's copy is replaced by the combination
    /// of all ranks' copies. The tensor must belong to this group ([`Error::WrongGroup`]). Waits for
    /// the work queued on every rank first, since a peer's kernel may still be writing a rank's copy
    /// (symmetric tensors are not tracked across streams).
    pub fn all_reduce_symmetric<T: Element>(&self, tensor: &mut SymmetricTensor<T>, op: ReduceOp) -> Result<()> {
        let dtype = dtype::of::<T>("all_reduce_symmetric")?;
        self.group.check_symmetric("all_reduce_symmetric", tensor)?;
        self.group.synchronize()?;
        let count = tensor.len();
        self.run("ncclAllReduce", count, |rank, comm, stream| {
            let buffer = tensor.peer_ptr(rank) as *mut c_void;
            // Safety: rank `rank`'s copy holds `count` elements on its device, and the tensor is
            // borrowed mutably for the call; its memory outlives queued work (dropping it waits).
            unsafe { result::all_reduce(buffer, buffer, count, dtype, op.nccl(), comm, stream) }
        })
    }

    /// One tensor per rank, each of `expected` shape and on its rank's device.
    fn check_outputs<T: Element>(
        &self,
        argument: &'static str,
        tensors: &[DeviceTensor<T>],
        expected: &[usize],
    ) -> Result<()> {
        check::rank_count(argument, self.ranks(), tensors.len())?;
        check::rank_shapes(argument, expected, tensors.iter().map(DeviceTensor::shape))?;
        self.group.check_devices(argument, tensors)
    }

    /// Takes every source's address for reading and every destination's for writing on its rank's
    /// stream (ordering the collective after earlier work on other streams), runs `body` with
    /// them, and records the accesses afterwards.
    fn with_buffers<T: Element>(
        &self,
        send: &[DeviceTensor<T>],
        recv: &mut [DeviceTensor<T>],
        body: impl FnOnce(&[*const c_void], &[*mut c_void]) -> Result<()>,
    ) -> Result<()> {
        let (sources, _read_guards): (Vec<*const c_void>, Vec<AccessGuard<'_>>) = send
            .iter()
            .zip(self.group.devices())
            .map(|(tensor, device)| {
                let (address, guard) = tensor.device_ptr(device.stream());
                (address as *const c_void, guard)
            })
            .unzip();
        let (destinations, _write_guards) = self.write_addresses(recv);
        let destinations: Vec<*mut c_void> = destinations.into_iter().map(|a| a as *mut c_void).collect();
        body(&sources, &destinations)
    }

    /// Every tensor's address for writing on its rank's stream, with the guards.
    fn write_addresses<'a, T: Element>(
        &'a self,
        tensors: &'a mut [DeviceTensor<T>],
    ) -> (Vec<u64>, Vec<AccessGuard<'a>>) {
        tensors
            .iter_mut()
            .zip(self.group.devices())
            .map(|(tensor, device)| tensor.device_ptr_mut(device.stream()))
            .unzip()
    }

    /// Queues `enqueue(rank, comm, stream)` for every rank inside one NCCL group; nothing when
    /// `count` is 0 (every rank has the same count: the shapes were checked).
    ///
    /// Every argument has been checked before, so a failure here is NCCL's own (out of memory, a
    /// broken connection). The group is closed in any case; NCCL reports a failed call of a group
    /// again at `ncclGroupEnd` and then launches none of its operations.
    fn run(
        &self,
        call: &'static str,
        count: usize,
        mut enqueue: impl FnMut(usize, ncclComm_t, sys::cudaStream_t) -> std::result::Result<NcclStatus, NcclError>,
    ) -> Result<()> {
        if count == 0 {
            return Ok(());
        }
        result::group_start().map_err(|err| nccl_error("ncclGroupStart", err, None))?;
        let mut failure = None;
        for (rank, &comm) in self.comms.iter().enumerate() {
            let stream = self.group.device(rank).stream().cu_stream() as sys::cudaStream_t;
            if let Err(err) = enqueue(rank, comm, stream) {
                failure = Some(nccl_error(call, err, Some(comm)));
                break;
            }
        }
        let end = result::group_end();
        if let Some(err) = failure {
            return Err(err);
        }
        end.map_err(|err| nccl_error("ncclGroupEnd", err, None))?;
        Ok(())
    }
}

impl Drop for Collectives {
    /// Waits for every rank's stream, then aborts the communicators (`ncclCommAbort`: frees them
    /// without the collective handshake `ncclCommDestroy` may wait on, which a failed peer would
    /// turn into a hang). Errors are ignored; `Drop` must not panic.
    fn drop(&mut self) {
        let _ = self.group.synchronize();
        for &comm in &self.comms {
            // Safety: `comm` came from `ncclCommInitAll` and is never used again.
            let _ = unsafe { result::comm_abort(comm) };
        }
    }
}

impl std::fmt::Debug for Collectives {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Collectives").field("group", &self.group.id()).field("ranks", &self.ranks()).finish()
    }
}
