//! Copies between memories that the hardware runs asynchronously: TMA loads and stores, bulk
//! copies into a peer's shared memory, and the fence that hands threads' stores to them.

use super::memory::{Smem, Tile};
use super::sync::Barrier;
use super::{only_in_kernels, Call, InKernel};

/// A TMA load: copies the global tile `src` into the shared buffer `dst`, completing on `bar`.
///
/// The copy is asynchronous: wait on the barrier ([`barrier_wait`](super::barrier_wait)) before
/// reading `dst`. It is one arrival on `bar`, whose phase also waits for the copy's bytes, so a
/// `Barrier<2>` completes when two copies have landed.
///
/// # Forms
///
/// - `copy_gmem_to_smem(a.tile([i, k]), a_s, bar)`: the tile's shape is the buffer's.
/// - `copy_gmem_to_smem(a.tile([i, k]), a_s, bar, multicast = true)`, in a kernel with clusters:
///   every program of the cluster issues the same copy, and each loads its share of the buffer's
///   rows into the same place in every program of the cluster; each program's `bar` expects the
///   whole buffer's bytes. A program may multicast into a buffer again only after every program
///   that reads it has released it (a cluster-wide [`barrier_arrive`](super::barrier_arrive)).
///
/// # Rules
///
/// - `src` is a tile of a global array (`Gmem` or `GmemMut`) of `dst`'s dtype (`f32` arrays also
///   load into `tf32` buffers) and rank; a tile written with its shape has the buffer's shape as
///   stored.
/// - `dst` is a whole buffer or slab (`a_s.at(s)`), not a window; the copy fills it as stored.
/// - A row of the box spans a multiple of 16 bytes, and the box is at most 256 elements along each
///   dimension (the swizzled one excepted: it is copied in swizzle-wide columns).
/// - The array's static dimensions are multiples of the box; runtime ones are checked at launch
///   unless `ragged(..)`, where TMA fills the part of the box outside the array with zeros.
/// - `bar` is one barrier (`bars.at(i)` of an array); with `multicast = true` the buffer's rows
///   divide by the cluster's size.
///
/// # PTX
///
/// One thread per warpgroup: `mbarrier.arrive.expect_tx.shared::cta.b64` of the copy's bytes,
/// then `cp.async.bulk.tensor.Nd.shared::cluster.global.mbarrier::complete_tx::bytes` with a
/// tensor map of the array (`.multicast::cluster` for a multicast). The launch encodes one tensor
/// map per array, box shape and swizzle, and caches it.
///
/// # Interpreter
///
/// Reads the tile when issued and arrives on `bar`; the bytes land in the buffer when that phase
/// completes (a read before a [`barrier_wait`](super::barrier_wait) that sees it is a race the
/// interpreter reports). With `multicast = true`, each program's share of the rows lands in
/// every program's buffer.
///
/// # Example
///
/// The [crate documentation](crate)'s first example loads A and B tiles on one barrier; [`Smem`]
/// and [`Smem::at`] have more. A multicast, each program of a pair loading half of a shared tile
/// for both:
///
/// ```rust
/// use tessel::prelude::*;
///
/// /// y = x + w for every 64-row tile of x, with w's tile loaded once per pair of programs.
/// #[kernel(grid = (M / 64), cluster = (2, 1))]
/// fn add_tile(x: Gmem<f32, M, 64>, w: Gmem<f32, 64, 64>, y: GmemMut<f32, M, 64>) {
///     let i = program_id(0);
///     run_scoped(|w_s: Smem<f32, 64, 64>, bar: Barrier| {
///         copy_gmem_to_smem(w.tile([0, 0]), w_s, bar, multicast = true); // 32 rows each, for both
///         barrier_wait(bar);
///         let v = x.tile([i, 0], [64, 64]).load(Layout::Strided) + w_s.load(Layout::Strided);
///         y.tile([i, 0], [64, 64]).store(v);
///     });
/// }
///
/// fn main() -> tessel::Result<()> {
///     let x = HostTensor::from_fn([256, 64], |ix| 1000.0 * ix[0] as f32)?;
///     let w = HostTensor::from_fn([64, 64], |ix| ix[1] as f32)?;
///     let mut y = HostTensor::zeros([256, 64])?;
///     add_tile::interpret(&x, &w, &mut y)?;
///     assert_eq!(y.get(&[130, 7]), Some(130_007.0));
///     Ok(())
/// }
/// ```
pub fn copy_gmem_to_smem<T, S, X, const ARRIVALS: u32>(src: Tile<T, S>, dst: Smem<T, S, X>, bar: Barrier<ARRIVALS>) {
    match src.never {}
}

/// A TMA store: copies the shared buffer `src` into the global tile `dst` (of a `GmemMut`), or,
/// with `reduce = Reduce::Add` (or another [`Reduce`] operation), combines it into the tile.
///
/// The copy is asynchronous: before `src` is written again, [`wait_smem_to_gmem`] waits until it
/// has been read. Values that the warpgroup's threads stored into `src` reach the copy after
/// [`commit_smem`].
///
/// # Forms
///
/// - `copy_smem_to_gmem(y_s, y.tile([i, j]))`: the tile takes the buffer's values.
/// - `copy_smem_to_gmem(dq_s, dq.tile([i, 0]), reduce = Reduce::Add)`: each element of the tile
///   becomes `tile + buffer` (or `min`, `max`, .. for the other [`Reduce`] operations), atomically
///   per element, so that programs may accumulate into one tile concurrently (attention's `dQ`
///   summed over the programs of one query block, a split-K GEMM's partial products). It completes
///   as a plain TMA store does: [`wait_smem_to_gmem`] waits for it to read the buffer.
///
/// # Rules
///
/// As [`copy_gmem_to_smem`], with `dst` a tile of a `GmemMut` array (also another device's,
/// `remote(buf, rank).tile(..)`: see [`devices`](super::devices)); the part of the box outside
/// the array (a ragged dimension's last tile) is not written. A TMA store's writes are ordered by
/// a later [`semaphore_signal`](super::semaphore_signal) only once they are complete,
/// [`wait_smem_to_gmem`]`(n, complete = true)`; into another device's memory that is checked
/// (T0149). A reducing store's array has a dtype its operation combines (PTX ISA,
/// `cp.reduce.async.bulk.tensor`):
///
/// | `reduce =` | dtypes |
/// |---|---|
/// | `Reduce::Add` | `f32`, `f16`, `bf16`, `i32`, `u32`, `u64` |
/// | `Reduce::Min`, `Reduce::Max` | `f16`, `bf16`, `i32`, `u32`, `i64`, `u64` |
/// | `Reduce::Inc`, `Reduce::Dec` | `u32` |
/// | `Reduce::And`, `Reduce::Or`, `Reduce::Xor` | `i32`, `u32`, `i64`, `u64` |
///
/// # PTX
///
/// One thread per warpgroup: `cp.async.bulk.tensor.Nd.global.shared::cta.bulk_group` (with
/// `reduce`: `cp.reduce.async.bulk.tensor.Nd.global.shared::cta.add.tile.bulk_group`, `.min`, ..),
/// then `cp.async.bulk.commit_group`.
///
/// # Interpreter
///
/// Copies (or combines, one element at a time, each an atomic read-modify-write rounded to the
/// array's dtype) when issued; for the race detector it reads the buffer (and writes the tile)
/// until a [`wait_smem_to_gmem`] covers it, so a rewrite of the buffer before that is a race. A
/// reducing store's update of the tile is atomic: it races with another program's load or store
/// of the same elements that nothing orders, never with other reductions.
///
/// Floating-point sums depend on the order of their terms. The interpreter adds a program's
/// elements when the store is issued, and different programs' in the order the host threads run
/// them; the GPU's order is unspecified. Tests of such sums compare with a tolerance, or use
/// values whose sums are exact (small integers).
///
/// # Example
///
/// [`Smem`]'s example loads, scales and stores a tile. Four programs adding their tiles into one:
///
/// ```rust
/// use tessel::prelude::*;
///
/// /// y[tile i % T] += x[tile i], T tiles of 64 rows in y.
/// #[kernel(grid = (M / 64))]
/// fn fold(x: Gmem<f32, M, 64>, y: GmemMut<f32, T, 64>) {
///     let i = program_id(0);
///     run_scoped(|x_s: Smem<f32, 64, 64>, bar: Barrier| {
///         copy_gmem_to_smem(x.tile([i, 0]), x_s, bar);
///         barrier_wait(bar);
///         copy_smem_to_gmem(x_s, y.tile([i % (T / 64), 0]), reduce = Reduce::Add);
///         wait_smem_to_gmem(0);
///     });
/// }
///
/// fn main() -> tessel::Result<()> {
///     let x = HostTensor::from_fn([256, 64], |ix| ix[0] as f32)?;
///     let mut y = HostTensor::zeros([128, 64])?;
///     fold::interpret(&x, &mut y)?;
///     assert_eq!(y.get(&[3, 0]), Some((3 + 131) as f32)); // rows 3 and 131 of x
///     Ok(())
/// }
/// ```
pub fn copy_smem_to_gmem<T, S, X>(src: Smem<T, S, X>, dst: Tile<T, S>) {
    match src.never {}
}

#[allow(non_snake_case)]
pub mod Reduce {
    //! The operations of a reducing TMA store, written `Reduce::Add` and so on in
    //! `copy_smem_to_gmem(src, dst, reduce = Reduce::Add)`: each element of the global tile
    //! becomes `op(tile, buffer)` ([`copy_smem_to_gmem`](super::copy_smem_to_gmem) lists the
    //! dtypes each takes). Register arrays add into global memory with
    //! [`Tile::atomic_add`](crate::lang::Tile::atomic_add).

    /// `tile + buffer`, rounded to the dtype (integers wrap).
    #[derive(Clone, Copy, Debug)]
    pub struct Add;
    /// The smaller of the two (a number wins over a NaN).
    #[derive(Clone, Copy, Debug)]
    pub struct Min;
    /// The larger of the two (a number wins over a NaN).
    #[derive(Clone, Copy, Debug)]
    pub struct Max;
    /// `u32` only: `tile >= buffer ? 0 : tile + 1` (a counter that wraps at the buffer's value).
    #[derive(Clone, Copy, Debug)]
    pub struct Inc;
    /// `u32` only: `tile == 0 || tile > buffer ? buffer : tile - 1`.
    #[derive(Clone, Copy, Debug)]
    pub struct Dec;
    /// Bitwise and.
    #[derive(Clone, Copy, Debug)]
    pub struct And;
    /// Bitwise or.
    #[derive(Clone, Copy, Debug)]
    pub struct Or;
    /// Bitwise exclusive or.
    #[derive(Clone, Copy, Debug)]
    pub struct Xor;
}

/// Waits until at most `n` of the warpgroup's TMA stores ([`copy_smem_to_gmem`]) are still
/// reading shared memory, so that their buffers may be written again; with `complete = true`,
/// until at most `n` are still writing global memory, so that a later
/// [`semaphore_signal`](super::semaphore_signal) publishes what they wrote.
///
/// # Forms
///
/// - `wait_smem_to_gmem(n)`: the stores' reads of shared memory (Pallas's
///   `plgpu.wait_smem_to_gmem(n, wait_read_only=True)`).
/// - `wait_smem_to_gmem(n, complete = true)`: their writes of global memory too
///   (`wait_read_only=False`), what a store into another device's memory needs before the signal
///   that publishes it (see [`devices`](super::devices)); the flag may be a condition known when
///   the kernel is read.
///
/// # Rules
///
/// `n` is an integer literal.
///
/// # PTX
///
/// `cp.async.bulk.wait_group.read n` by the thread that issued the stores, then a warpgroup
/// barrier (`bar.sync`), so that no thread rewrites a buffer early. With `complete = true`,
/// `cp.async.bulk.wait_group n` (without `.read`: the writes are complete and visible to the
/// issuing thread), then `fence.proxy.async.global`, which orders the writes, made through the
/// async proxy, before that thread's later operations, the release of a signal among them.
///
/// # Interpreter
///
/// Completes the reads of the TMA stores it covers, for the race detector: their buffers may be
/// rewritten after it; with `complete = true`, their writes too: a load of what they wrote, in
/// this warpgroup or (after a signal) another program or device, is ordered after them.
///
/// # Example
///
/// [`Smem`]'s stores a tile with TMA and waits for it.
pub fn wait_smem_to_gmem<'k>(n: u32)
where
    Call<'k>: InKernel,
{
    only_in_kernels()
}

/// Makes the warpgroup's ordinary shared-memory stores ([`Smem::store`](super::Smem::store))
/// visible to TMA and `wgmma` (the async proxy), and to the warpgroup's other threads.
///
/// Call it between storing into a buffer and a [`copy_smem_to_gmem`], a
/// [`copy_smem_to_peer`] or a [`wgmma`](super::wgmma) that reads it, and between one thread's
/// stores and another thread's loads of the same elements.
///
/// # PTX
///
/// `fence.proxy.async.shared::cta` by every thread, then `bar.sync` over the warpgroup.
///
/// # Interpreter
///
/// The warpgroup's register stores into shared memory so far reach TMA stores, peer copies and
/// `wgmma`s (one host thread runs the warpgroup, so nothing waits); without it, such a read of
/// them is a race the interpreter reports.
///
/// # Examples
///
/// [`Smem`]'s commits a buffer before a TMA store; [`Smem::slice`]'s before threads read what
/// others stored.
pub fn commit_smem<'k>()
where
    Call<'k>: InKernel,
{
    only_in_kernels()
}

/// Copies this program's shared buffer `src` into the buffer `dst` of program `rank` of the
/// cluster (distributed shared memory), completing on that program's `bar`.
///
/// `dst` and `bar` name this program's allocations: the copy lands at the same place in the peer.
/// Like a TMA load it is one arrival on the peer's `bar`, whose phase also waits for the bytes.
/// A program that sends must stay until the peer has received: the cluster barrier at the end of
/// a `run_scoped` that allocates barriers does that. The skinny GEMMs of the `tessel-kernels`
/// crate pass their `f32` partial sums down a cluster this way.
///
/// # Rules
///
/// - The kernel has clusters of two or more programs; a constant `rank` lies in the cluster.
/// - It copies bytes: `dst` is laid out as `src` (same dtype, shape and swizzle), both whole
///   buffers or slabs (not windows or transposed views), of a multiple of 16 bytes.
/// - `bar` is one barrier; `src`'s values stored by the warpgroup's threads are committed first
///   ([`commit_smem`]), as for a TMA store.
///
/// # PTX
///
/// One thread per warpgroup: `mapa.shared::cluster.u32` of `dst` and `bar` into program `rank`'s
/// window, `mbarrier.arrive.expect_tx.shared::cluster.b64` there, then
/// `cp.async.bulk.shared::cluster.shared::cta.mbarrier::complete_tx::bytes`.
///
/// # Interpreter
///
/// Reads `src` when issued and arrives once on the peer's `bar`; the bytes land in the peer's
/// buffer when that phase completes.
///
/// # Example
///
/// ```rust
/// use tessel::prelude::*;
///
/// /// Pairs of programs: the second of each pair adds its tile to the first's.
/// #[kernel(grid = (M / 64), cluster = (2, 1))]
/// fn pair_sums(x: Gmem<f32, M, 64>, y: GmemMut<f32, M, 64>) {
///     let i = program_id(0);
///     run_scoped(|mine: Smem<f32, 64, 64>, theirs: Smem<f32, 64, 64>, got: Barrier| {
///         mine.store(x.tile([i, 0], [64, 64]).load(Layout::Strided));
///         commit_smem();
///         if cluster_rank() == 1 {
///             copy_smem_to_peer(mine, theirs, got, 0);
///         } else {
///             barrier_wait(got);
///             let sum = mine.load(Layout::Strided) + theirs.load(Layout::Strided);
///             y.tile([i / 2, 0], [64, 64]).store(sum);
///         }
///     });
/// }
///
/// fn main() -> tessel::Result<()> {
///     let x = HostTensor::from_fn([256, 64], |ix| ix[0] as f32)?;
///     let mut y = HostTensor::zeros([256, 64])?;
///     pair_sums::interpret(&x, &mut y)?;
///     assert_eq!(y.get(&[65, 0]), Some((129 + 193) as f32)); // programs 2 and 3
///     Ok(())
/// }
/// ```
pub fn copy_smem_to_peer<T, S, X, const ARRIVALS: u32>(
    src: Smem<T, S, X>,
    dst: Smem<T, S, X>,
    bar: Barrier<ARRIVALS>,
    rank: i32,
) {
    match src.never {}
}
