//! Several devices: a kernel launched on a group of GPUs at once, each program knowing its
//! device's rank and reaching the other devices' copies of its `#[peers]` arrays.
//!
//! # The model
//!
//! The model is Pallas's Mosaic GPU (`lax.axis_index`, `plgpu.remote_ref`,
//! `pl.semaphore_signal(.., device_id=..)`), in one process that drives every GPU of the group:
//!
//! - `#[kernel(grid = (..), devices = W)]` runs the kernel on a
//!   [`DeviceGroup`](crate::DeviceGroup) of `W` GPUs: every device runs the whole grid, with its
//!   own arguments. `W` is a literal, or a const parameter of a generic kernel
//!   (`#[kernel(.., devices = W, instances(2, 4, 8))] fn k<const W: usize>(..)`), also in a
//!   `#[kernels]` module. A kernel runs on 1 to 72 devices.
//! - [`device_id()`] is the device's rank in the group (`0..W`), [`device_count()`] is `W`.
//! - A `#[peers]` parameter (`#[peers] buf: GmemMut<bf16, M, K>`, or a read-only `Gmem`) is a
//!   symmetric array: one copy per device, all of one shape, every copy reachable from every
//!   device (a [`SymmetricTensor`](crate::SymmetricTensor), allocated with CUDA virtual memory
//!   management and mapped into every device's address space). The parameter itself is this
//!   device's copy; [`remote`]`(buf, rank)` is device `rank`'s, a view usable wherever `buf` is:
//!   `.tile(..)`, register loads and stores, atomic adds, TMA loads and stores (reducing ones
//!   too), and, for a `#[peers]` `u32` array, semaphore signals.
//! - Semaphores of a `#[peers]` array are counters other devices signal:
//!   `semaphore_signal(remote(sems, rank), i)` adds to device `rank`'s counter `i`, and
//!   `semaphore_wait(sems, i)` waits on this device's own (a wait only ever reads the local copy,
//!   as in Pallas). Every operation on a `#[peers]` counter is of system scope, so that a signal
//!   from one device synchronizes with a wait on another.
//! - Other global arrays take one tensor per device, each device's its own.
//!
//! # Publishing what one device writes into another's memory
//!
//! A `semaphore_signal` on a `#[peers]` counter is a system-scope release: what the signalling
//! warpgroup wrote before it, into any device's memory, is seen by the loads (and, after the wait's
//! proxy fence, the TMA copies) of whoever waits for the count. Register stores and atomic adds are
//! written in program order, so they are published by the next signal. A TMA store is
//! asynchronous: [`wait_smem_to_gmem`](super::wait_smem_to_gmem)`(n)` waits only for it to read
//! shared memory; its writes are complete at `wait_smem_to_gmem(n, complete = true)`, which must
//! come before the signal that publishes them. The build checks this (T0149): a TMA store into a
//! `remote(..)` tile still writing at the next signal on a `#[peers]` counter is a compile error.
//!
//! | write into another device's memory | complete | published by |
//! |---|---|---|
//! | `remote(buf, r).tile(..).store(v)` | in program order | the next `semaphore_signal` on a `#[peers]` counter |
//! | `remote(buf, r).tile(..).atomic_add(v)` | in program order (`red.relaxed.sys`) | the same |
//! | `copy_smem_to_gmem(src, remote(buf, r).tile(..))`, also `reduce = ..` | at `wait_smem_to_gmem(n, complete = true)` | the same, after that wait |
//!
//! # PTX
//!
//! | construct | PTX |
//! |---|---|
//! | `device_id()` | `ld.param.u32` of the entry's `.param .u32 device_rank` |
//! | `device_count()` | the constant `W` |
//! | `#[peers] buf` | its own `.param .u64 buf` (this device's copy), and `.param .align 8 .b8 peers_buf[8 * W]`: every device's address, in rank order |
//! | `remote(buf, r)` | `setp.ge.u32` and `trap` for a rank outside the group, then `mad.wide.u32` and `ld.param.u64` of `peers_buf[r]`, `cvta.to.global` |
//! | a TMA copy of a `remote(..)` tile | its tensor map from `.param .align 64 .b8 tmap_i[128 * W]` (one per device, rank `r`'s at `128 * r`) |
//! | `wait_smem_to_gmem(n, complete = true)` | `cp.async.bulk.wait_group n` (not `.read`), `fence.proxy.async.global`, `bar.sync` |
//! | signal of a `#[peers]` counter | `bar.sync`, `red.release.sys.global.add.u32`; a range: `fence.acq_rel.sys`, `red.relaxed.sys` |
//! | wait on a `#[peers]` counter | `ld.acquire.sys.global.u32` polls, `atom.acquire.sys.global.cas.b32`, `bar.sync`, `fence.proxy.async.global` |
//! | `.atomic_add` into a `#[peers]` array | `red.relaxed.sys.global.add` |
//!
//! The parameters grow with `W`: 8 bytes per device for each `#[peers]` array, 128 per device for
//! each tensor map of peers' tiles (one per array, box and swizzle that a TMA copy of a
//! `remote(..)` tile uses). A module whose parameters take more than 4352 bytes is PTX ISA 8.1
//! (which drivers from CUDA 12.1 on load), and at most 32764 bytes fit (T0150): on 8 devices, two
//! arrays and three maps of peers' tiles take 3.2 KiB; on 72, three maps take 27 KiB.
//!
//! # Launch and interpreter
//!
//! A kernel `k` with `devices = W` generates
//!
//! ```text
//! k::launch(group: &DeviceGroup, x: &[impl AsDeviceView<T>], y: &mut [impl AsDeviceViewMut<T>],
//!           buf: &SymmetricTensor<T> /* #[peers] Gmem */, sems: &mut SymmetricTensor<u32> /* #[peers] GmemMut */,
//!           alpha: f32) -> Result<()>
//! k::interpret(x: &[HostTensor<T>], y: &mut [HostTensor<T>], buf: &[HostTensor<T>],
//!              sems: &mut [HostTensor<u32>], alpha: f32) -> Result<()>
//! k::check_args(..)   // one device's shapes, as for a kernel of one device
//! ```
//!
//! `launch` checks every rank's arguments before any rank launches (the group has `W` devices, one
//! tensor per rank for each array, all of one shape, each on its rank's device, each symmetric
//! tensor the group's, and each rank's `check_args`), then launches rank `r` on
//! `group.device(r)`'s stream, asynchronously. `interpret` runs every device's grid in one
//! schedule, so semaphores between devices make progress; each device has its own memory,
//! `remote(..)` reaches another's, and the race detector follows accesses across devices (an
//! unpublished write into a peer's memory that the peer reads is reported, naming both devices).
//! A wait that nothing will signal is an error, never a hang.
//!
//! # Example
//!
//! ```rust
//! use tessel::prelude::*;
//!
//! /// Each device sends its tile of `x` to the next device's `inbox`, then waits for the previous
//! /// device's and adds it to its own.
//! #[kernel(grid = (1), devices = 4)]
//! fn pass_on(x: Gmem<f32, 64, 64>, #[peers] inbox: GmemMut<f32, 64, 64>, #[peers] got: GmemMut<u32, 1>,
//!            y: GmemMut<f32, 64, 64>) {
//!     let me = device_id();
//!     let next = (me + 1) % device_count();
//!     let v = x.tile([0, 0], [64, 64]).load(Layout::Strided);
//!     remote(inbox, next).tile([0, 0]).store(v);
//!     semaphore_signal(remote(got, next), 0);
//!     semaphore_wait(got, 0);
//!     y.tile([0, 0]).store(v + inbox.tile([0, 0], [64, 64]).load(Layout::Strided));
//! }
//!
//! fn main() -> tessel::Result<()> {
//!     let x: Vec<_> = (0..4).map(|d| HostTensor::from_fn([64, 64], |_| d as f32)).collect::<Result<_>>()?;
//!     let mut inbox: Vec<_> = (0..4).map(|_| HostTensor::zeros([64, 64])).collect::<Result<_>>()?;
//!     let mut got: Vec<_> = (0..4).map(|_| HostTensor::<u32>::zeros([1])).collect::<Result<_>>()?;
//!     let mut y: Vec<_> = (0..4).map(|_| HostTensor::zeros([64, 64])).collect::<Result<_>>()?;
//!     pass_on::interpret(&x, &mut inbox, &mut got, &mut y)?; // `pass_on::launch(&group, ..)` on GPUs
//!     assert_eq!(y[0].get(&[5, 5]), Some(0.0 + 3.0)); // device 0 got device 3's tile
//!     assert_eq!(y[2].get(&[5, 5]), Some(2.0 + 1.0));
//!     Ok(())
//! }
//! ```

use super::memory::{Gmem, GmemMut};
use super::sealed::Sealed;
use super::{only_in_kernels, Call, InKernel};

/// This device's rank in the group of a kernel with `devices = W`, an `i32` in `0..W`: Pallas's
/// `lax.axis_index`.
///
/// # Rules
///
/// The kernel has `devices = W` (T0144).
///
/// # PTX
///
/// `ld.param.u32` of the entry's `device_rank`, which the launch sets to `r` on `group.device(r)`.
///
/// # Interpreter
///
/// The rank of the device whose grid the program belongs to.
///
/// # Example
///
/// The [module documentation](self#example)'s.
pub fn device_id<'k>() -> i32
where
    Call<'k>: InKernel,
{
    only_in_kernels()
}

/// The group's size `W` of `devices = W`, an `i32` known when the kernel compiles (as a const is:
/// it may bound an `#[unroll]` loop or size a shape).
///
/// # Rules
///
/// The kernel has `devices = W` (T0144).
///
/// # PTX
///
/// The constant.
///
/// # Interpreter
///
/// The constant.
///
/// # Example
///
/// The [module documentation](self#example)'s.
pub fn device_count<'k>() -> i32
where
    Call<'k>: InKernel,
{
    only_in_kernels()
}

/// What [`remote`] takes: a `#[peers]` array, read-only ([`Gmem`]) or written ([`GmemMut`]).
pub trait PeersArray: Sealed {}

impl<T, S> Sealed for Gmem<T, S> {}
impl<T, S> Sealed for GmemMut<T, S> {}
impl<T, S> PeersArray for Gmem<T, S> {}
impl<T, S> PeersArray for GmemMut<T, S> {}

/// Device `rank`'s copy of the `#[peers]` array `buf`: a view of the same type, usable wherever
/// `buf` is (`.tile(..)`, loads, stores, atomic adds, TMA copies, semaphore signals). Pallas's
/// `plgpu.remote_ref(buf, rank)`.
///
/// # Forms
///
/// - `remote(buf, rank).tile([i, j])` as a TMA destination or source, also reducing:
///   `copy_smem_to_gmem(t, remote(buf, next).tile([i, 0]), reduce = Reduce::Add)`.
/// - `remote(buf, rank).tile([i, j], [64, 64]).load(..)`, `.store(v)`, `.atomic_add(v)`.
/// - `semaphore_signal(remote(sems, rank), i)`: signals device `rank`'s counter.
///
/// # Rules
///
/// - The kernel has `devices = W` (T0144); `buf` is a `#[peers]` parameter itself (or a kernel
///   function's parameter bound to one), not a tile of it nor another `remote(..)` (T0146).
/// - `rank` is an `i32` or `u32`, a constant one in `0..W` (T0147).
/// - A wait takes this device's counters, never `remote(..)` (T0148).
/// - A TMA store into a `remote(..)` tile is complete (`wait_smem_to_gmem(n, complete = true)`)
///   before the next signal on a `#[peers]` counter, which publishes it (T0149).
///
/// # PTX
///
/// Rank `rank`'s address from the entry's `peers_<buf>` table (a rank outside the group traps);
/// a TMA copy uses that rank's tensor map (see the [module documentation](self#ptx)).
///
/// # Interpreter
///
/// Device `rank`'s buffer of the argument (a rank outside the group is an
/// [`Error::Interpreter`](crate::Error::Interpreter)); the race detector tracks it as that device's
/// memory.
///
/// # Example
///
/// The [module documentation](self#example)'s.
pub fn remote<A: PeersArray>(buf: A, rank: i32) -> A {
    // `A` is `Gmem` or `GmemMut`, uninhabited: no host code holds one to call this with.
    buf
}
