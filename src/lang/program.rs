//! Where code runs: the program's place in the grid and the cluster, the warpgroup's in the
//! program, and its register budget.

use super::{only_in_kernels, Call, InKernel};

/// The index of this program along grid axis `axis` (0, 1 or 2), as an `i32`.
///
/// # Rules
///
/// `axis` is an integer literal naming an axis of the kernel's `grid = (..)`.
///
/// # PTX
///
/// `mov.u32` from `%ctaid.x`, `%ctaid.y` or `%ctaid.z`.
///
/// # Interpreter
///
/// The index of the program it runs.
///
/// # Example
///
/// ```rust
/// use tessel::prelude::*;
///
/// /// Each 64 x 64 tile of y holds 100 times its row of tiles plus its column.
/// #[kernel(grid = (M / 64, N / 64))]
/// fn coordinates(y: GmemMut<i32, M, N>) {
///     let (i, j) = (program_id(0), program_id(1));
///     y.tile([i, j], [64, 64]).store(splat::<i32>(100 * i + j, [64, 64]).to_layout(Layout::Strided));
/// }
///
/// fn main() -> tessel::Result<()> {
///     let mut y = HostTensor::zeros([128, 192])?;
///     coordinates::interpret(&mut y)?;
///     assert_eq!(y.get(&[70, 130]), Some(102));
///     Ok(())
/// }
/// ```
pub fn program_id<'k>(axis: u32) -> i32
where
    Call<'k>: InKernel,
{
    only_in_kernels()
}

/// The number of programs along grid axis `axis` (0, 1 or 2), as an `i32`: a persistent kernel's
/// stride over its tiles.
///
/// # Rules
///
/// `axis` is an integer literal naming an axis of the kernel's `grid = (..)`.
///
/// # PTX
///
/// `mov.u32` from `%nctaid.x`, `%nctaid.y` or `%nctaid.z`.
///
/// # Interpreter
///
/// The grid's extent.
///
/// # Example
///
/// ```rust
/// use tessel::prelude::*;
///
/// /// y = x + 1 by four programs, each taking every fourth tile (a persistent kernel).
/// #[kernel(grid = (4))]
/// fn persistent(x: Gmem<f32, M, 64>, y: GmemMut<f32, M, 64>) {
///     let (p, n) = (program_id(0), num_programs(0));
///     for u in 0..cdiv(M / 64 - p, n) {
///         let t = p + u * n;
///         y.tile([t, 0], [64, 64]).store(x.tile([t, 0], [64, 64]).load(Layout::Strided) + 1.0);
///     }
/// }
///
/// fn main() -> tessel::Result<()> {
///     let x = HostTensor::from_fn([5 * 64, 64], |ix| ix[0] as f32)?;
///     let mut y = HostTensor::zeros([5 * 64, 64])?;
///     persistent::interpret(&x, &mut y)?; // program 0 takes tiles 0 and 4
///     assert_eq!(y.get(&[4 * 64 + 1, 0]), Some(258.0));
///     Ok(())
/// }
/// ```
pub fn num_programs<'k>(axis: u32) -> i32
where
    Call<'k>: InKernel,
{
    only_in_kernels()
}

/// The index of this warpgroup in its program, from 0 to `warpgroups - 1`, as an `i32`.
///
/// Every warpgroup runs the whole body, so code that one warpgroup alone should run goes under
/// `if warpgroup_id() == w { .. }` (a producer and its consumers, see
/// [`pipeline_produce`](super::pipeline_produce)).
///
/// # PTX
///
/// `%tid.x / 128`.
///
/// # Interpreter
///
/// The index of the host thread's warpgroup (one host thread per warpgroup).
///
/// # Example
///
/// [`run_scoped`](super::run_scoped)'s: one warpgroup fills a buffer, the other reads it.
pub fn warpgroup_id<'k>() -> i32
where
    Call<'k>: InKernel,
{
    only_in_kernels()
}

/// This program's rank in its cluster, from 0 to the cluster's size - 1 (x fastest), as an `i32`.
///
/// With `cluster = (2, 1)` in the kernel attribute, programs come in pairs that share
/// multicast copies ([`copy_gmem_to_smem`](super::copy_gmem_to_smem) with `multicast = true`),
/// cluster-wide arrivals ([`barrier_arrive`](super::barrier_arrive) with `cluster = true`) and
/// each other's shared memory ([`copy_smem_to_peer`](super::copy_smem_to_peer)).
///
/// # PTX
///
/// `mov.u32` from `%cluster_ctarank`.
///
/// # Interpreter
///
/// The program's rank in its cluster.
///
/// # Example
///
/// [`copy_smem_to_peer`](super::copy_smem_to_peer)'s: rank 1 sends its tile to rank 0.
pub fn cluster_rank<'k>() -> i32
where
    Call<'k>: InKernel,
{
    only_in_kernels()
}

/// The GPU's global timer: nanoseconds, as an `i64`, the same clock on every SM, for timing
/// the phases of a kernel from inside it (the difference of two readings; store it like any
/// other value).
///
/// A reading is made where the call is, in program order for this thread; it does not wait for
/// earlier asynchronous work (a TMA copy, a wgmma) to finish: time a phase from a wait to a wait.
/// The timer ticks in steps of a microsecond on some GPUs, and on none does it say which clock
/// rate the SM ran at.
///
/// # PTX
///
/// `mov.u64` from `%globaltimer`.
///
/// # Interpreter
///
/// Nanoseconds since the launch began, on the host's monotonic clock: increasing, but the
/// interpreter's time, not the GPU's.
///
/// # Example
///
/// ```rust
/// use tessel::prelude::*;
///
/// /// y = 2 x, each program recording how long its tile took, in nanoseconds.
/// #[kernel(grid = (M / 64))]
/// fn timed(x: Gmem<f32, M, 64>, y: GmemMut<f32, M, 64>, ns: GmemMut<i64, P, 128>) {
///     let i = program_id(0);
///     let start = globaltimer();
///     y.tile([i, 0], [64, 64]).store(x.tile([i, 0], [64, 64]).load(Layout::Strided) * 2.0);
///     let took = globaltimer() - start;
///     ns.tile([i, 0], [1, 128]).store(splat::<i64>(took, [1, 128]));
/// }
///
/// fn main() -> tessel::Result<()> {
///     let x = HostTensor::from_fn([2 * 64, 64], |ix| ix[1] as f32)?;
///     let mut y = HostTensor::zeros([2 * 64, 64])?;
///     let mut ns = HostTensor::zeros([2, 128])?;
///     timed::interpret(&x, &mut y, &mut ns)?;
///     assert_eq!(y.get(&[65, 3]), Some(6.0));
///     assert!(ns.get(&[1, 0]).is_some_and(|t| t >= 0));
///     Ok(())
/// }
/// ```
pub fn globaltimer<'k>() -> i64
where
    Call<'k>: InKernel,
{
    only_in_kernels()
}

/// Moves this warpgroup's register budget to `n` per thread: a producer warpgroup lowers it, the
/// consumers raise theirs with what it gave up.
///
/// # Rules
///
/// - `n` is an integer literal, a multiple of 8 from 24 to 256.
/// - The kernel attribute sets the cap at entry, `max_registers = r` (without it, ptxas ignores
///   `setmaxnreg`).
/// - A raise can be granted: `n` is at most `r * warpgroups - 24 * (warpgroups - 1)` (the whole
///   pool, with every other warpgroup down at 24); a warpgroup waits until the registers are
///   free.
///
/// # PTX
///
/// `setmaxnreg.inc.sync.aligned.u32 n` above the cap, `setmaxnreg.dec.sync.aligned.u32 n` below
/// it, nothing at it.
///
/// # Interpreter
///
/// Nothing.
///
/// # Example
///
/// ```rust
/// use tessel::prelude::*;
///
/// /// A copying warpgroup needs few registers; it gives them to the one that computes.
/// #[kernel(grid = (M / 64), warpgroups = 2, warpgroup_axis = wg, max_registers = 168)]
/// fn double(x: Gmem<f32, M, 64>, y: GmemMut<f32, M, 64>) {
///     let i = program_id(0);
///     run_scoped(collective_axes = [wg], |x_s: Smem<f32, 64, 64>, ready: Barrier| {
///         if warpgroup_id() == 0 {
///             set_max_registers(40);
///             copy_gmem_to_smem(x.tile([i, 0]), x_s, ready);
///         } else {
///             set_max_registers(232);
///             barrier_wait(ready);
///             y.tile([i, 0], [64, 64]).store(x_s.load(Layout::Strided) * 2.0);
///         }
///     });
/// }
///
/// fn main() -> tessel::Result<()> {
///     let x = HostTensor::from_fn([64, 64], |ix| ix[1] as f32)?;
///     let mut y = HostTensor::zeros([64, 64])?;
///     double::interpret(&x, &mut y)?;
///     assert_eq!(y.get(&[5, 21]), Some(42.0));
///     assert!(double::PTX.contains("setmaxnreg.dec.sync.aligned.u32 40"));
///     Ok(())
/// }
/// ```
pub fn set_max_registers<'k>(n: u32)
where
    Call<'k>: InKernel,
{
    only_in_kernels()
}
