//! `Pipeline`: a ring of shared-memory stages that TMA fills and compute drains, in the manner of
//! Pallas's `emit_pipeline`.

use super::copy_type;
use super::sealed::{Never, Sealed};
use super::sync::Barrier;

/// A ring of `STAGES` shared-memory stages, each filled by `COPIES` TMA copies and released by
/// `RELEASES` warpgroups: `ring: Pipeline<3, 2, 1>`, allocated by
/// [`run_scoped`](super::run_scoped) beside the buffers whose leading dimension is the stage.
///
/// The buffers are ordinary [`Smem`](super::Smem) with a leading stage dimension (`a_s.at(s)`);
/// the ring supplies the barriers, the stage index and the parities. A producer warpgroup runs
/// [`pipeline_produce`], consumers [`pipeline_consume`]:
///
/// ```text
/// run_scoped(collective_axes = [wg], |a_s: Smem<bf16, 3, 64, 64, Swizzle128>, ring: Pipeline<3, 1, 1>| {
///     if warpgroup_id() == 0 {
///         pipeline_produce(ring, K / 64, |k, s, bar| copy_gmem_to_smem(a.tile([i, k]), a_s.at(s), bar));
///     } else {
///         pipeline_consume(ring, K / 64, |k, s| { wgmma(acc, a_s.at(s), b_s); });
///     }
/// })
/// ```
///
/// # Rules
///
/// - `COPIES` counts the TMA copies that fill a stage (the arrivals of its `full` barrier);
///   `RELEASES` the warpgroups that release it (of every program of the cluster, for
///   `cluster = true` releases). When `COPIES` is a literal and the producer's copies are not
///   under `if` or `for`, the build checks that the producer issues exactly that many per stage.
/// - `pipeline_produce` and `pipeline_consume` name a pipeline of an enclosing `run_scoped`; a
///   pipeline is not a kernel function's parameter (call the function inside the closure, with
///   the stage's views and `bar`).
/// - Each warpgroup keeps its own position in the ring, so loops over tiles that each produce or
///   consume `n` steps walk on through the same ring (a persistent kernel's tiles share one ring).
///
/// # PTX and interpreter
///
/// A pipeline is rewritten before checking into what the rest of the language has: two barrier
/// arrays, `ring__full: Barrier<COPIES, STAGES>` and `ring__empty: Barrier<RELEASES, STAGES>`, a
/// step counter `ring__step` and a stage counter `ring__stage` (counted around the ring, not
/// computed as a remainder), and the loops that [`pipeline_produce`] and [`pipeline_consume`]
/// describe. The interpreter's deadlock messages use these names; names with `__` are the
/// rewrite's.
pub struct Pipeline<const STAGES: u32, const COPIES: u32, const RELEASES: u32> {
    pub(super) never: Never,
}

copy_type!(Pipeline<; const STAGES: u32, const COPIES: u32, const RELEASES: u32>);
impl<const STAGES: u32, const COPIES: u32, const RELEASES: u32> Sealed for Pipeline<STAGES, COPIES, RELEASES> {}

/// The producer's loop: `n` steps, step `k` waiting until stage `s` is free and then running
/// `body(k, s, bar)`, whose copies into the stage complete on `bar`.
///
/// # Forms
///
/// `pipeline_produce(ring, n, |k, s, bar| { .. })`: `k` the step (0 to `n - 1`), `s` the stage,
/// `bar` the stage's `full` barrier, for the body's [`copy_gmem_to_smem`](super::copy_gmem_to_smem)s
/// (or its stores and a [`barrier_arrive`](super::barrier_arrive)).
///
/// # Semantics
///
/// From the second round of the ring on, each step waits for the stage's `empty` barrier (its
/// release by the consumers). Every thread of the producer waits, then the warpgroup
/// synchronizes, so the leader issues no copy into a stage before every warp has seen it free:
/// without that barrier a warp whose own work does not complete the stage's next phase could sleep
/// in its parity wait through two phases and then wait for a third that never comes. A
/// hand-written producer loop has the same hazard: write it as a `Pipeline`.
///
/// # PTX
///
/// ```text
/// for k in 0..n {
///     let s = ring__stage;
///     if ring__step >= STAGES { barrier_wait__in_step(ring__empty.at(s)); }  // parity wait, then bar.sync
///     body(k, s, ring__full.at(s));
///     ring__step += 1; ring__stage += 1; if ring__stage == STAGES { ring__stage = 0; }
/// }
/// ```
///
/// # Interpreter
///
/// The same loop.
///
/// # Example
///
/// ```rust
/// use tessel::prelude::*;
///
/// /// Row sums of 64 x 64 tiles along K: one warpgroup copies the tiles, the other adds them.
/// #[kernel(grid = (M / 64), warpgroups = 2, warpgroup_axis = wg, consts(STAGES = 2))]
/// fn sums(x: Gmem<f32, M, K>, out: GmemMut<f32, M, 64>) {
///     let i = program_id(0);
///     run_scoped(collective_axes = [wg], |x_s: Smem<f32, STAGES, 64, 64>, ring: Pipeline<STAGES, 1, 1>| {
///         if warpgroup_id() == 0 {
///             pipeline_produce(ring, K / 64, |k, s, bar| {
///                 copy_gmem_to_smem(x.tile([i, k]), x_s.at(s), bar);
///             });
///         } else {
///             let mut sum = splat::<f32>(0.0, [64, 64]).to_layout(Layout::Strided);
///             pipeline_consume(ring, K / 64, |k, s| {
///                 sum = sum + x_s.at(s).load(Layout::Strided);
///             });
///             out.tile([i, 0], [64, 64]).store(sum);
///         }
///     });
/// }
///
/// fn main() -> tessel::Result<()> {
///     let x = HostTensor::from_fn([128, 5 * 64], |ix| (ix[1] / 64) as f32)?;
///     let mut out = HostTensor::zeros([128, 64])?;
///     sums::interpret(&x, &mut out)?;
///     assert_eq!(out.get(&[90, 17]), Some(0.0 + 1.0 + 2.0 + 3.0 + 4.0));
///     Ok(())
/// }
/// ```
pub fn pipeline_produce<const STAGES: u32, const COPIES: u32, const RELEASES: u32>(
    ring: Pipeline<STAGES, COPIES, RELEASES>,
    n: i32,
    body: impl FnMut(i32, i32, Barrier<COPIES>),
) {
    match ring.never {}
}

/// The consumer's loop: `n` steps, step `k` waiting until stage `s` is full, running `body(k, s)`,
/// waiting for its `wgmma`s and releasing the stage.
///
/// # Forms
///
/// - `pipeline_consume(ring, n, |k, s| { .. })`.
/// - Options after the closure: `delay_release = true` keeps one `wgmma` group in flight instead
///   (`wgmma_wait(1)`) and releases each stage a step later, the last after the loop (better with
///   a single consumer warpgroup; with two, releasing at once lets the ring refill a step sooner
///   while the other's `wgmma`s keep the tensor cores busy); `cluster = true` releases in every
///   program of the cluster (for stages filled by multicast copies).
///
/// # PTX
///
/// ```text
/// for k in 0..n {
///     let s = ring__stage;
///     barrier_wait(ring__full.at(s));
///     body(k, s);
///     wgmma_wait(0);
///     barrier_arrive(ring__empty.at(s));   // cluster = true: on every program's
///     ring__step += 1; ring__stage += 1; if ring__stage == STAGES { ring__stage = 0; }
/// }
/// ```
///
/// # Interpreter
///
/// The same loop.
///
/// # Example
///
/// ```rust
/// use tessel::prelude::*;
///
/// /// C = A @ B: a producer warpgroup streams A and B tiles through a ring of three stages, and one
/// /// consumer multiplies them, keeping one wgmma group in flight.
/// #[kernel(grid = (M / 64, N / 64), warpgroups = 2, warpgroup_axis = wg)]
/// fn matmul(a: Gmem<bf16, M, K>, b: Gmem<bf16, K, N>, c: GmemMut<f32, M, N>) {
///     let (i, j) = (program_id(0), program_id(1));
///     run_scoped(
///         collective_axes = [wg],
///         |a_s: Smem<bf16, 3, 64, 64, Swizzle128>, b_s: Smem<bf16, 3, 64, 64, Swizzle128>, ring: Pipeline<3, 2, 1>| {
///             if warpgroup_id() == 0 {
///                 pipeline_produce(ring, K / 64, |k, s, bar| {
///                     copy_gmem_to_smem(a.tile([i, k]), a_s.at(s), bar);
///                     copy_gmem_to_smem(b.tile([k, j]), b_s.at(s), bar);
///                 });
///             } else {
///                 run_scoped(|acc: Acc<f32, 64, 64>| {
///                     pipeline_consume(ring, K / 64, |k, s| wgmma(acc, a_s.at(s), b_s.at(s)), delay_release = true);
///                     wgmma_wait(0);
///                     c.tile([i, j]).store(acc.load());
///                 });
///             }
///         },
///     );
/// }
///
/// fn main() -> tessel::Result<()> {
///     let a = HostTensor::from_fn([64, 320], |ix| bf16::from_f32((ix[1] % 5) as f32))?;
///     let b = HostTensor::from_fn([320, 128], |ix| bf16::from_f32((ix[1] % 2) as f32))?;
///     let mut c = HostTensor::zeros([64, 128])?;
///     matmul::interpret(&a, &b, &mut c)?;
///     assert_eq!((c.get(&[1, 0]), c.get(&[1, 1])), (Some(0.0), Some(640.0)));
///     Ok(())
/// }
/// ```
pub fn pipeline_consume<const STAGES: u32, const COPIES: u32, const RELEASES: u32>(
    ring: Pipeline<STAGES, COPIES, RELEASES>,
    n: i32,
    body: impl FnMut(i32, i32),
) {
    match ring.never {}
}
