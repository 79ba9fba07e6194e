//! The CPU interpreter: runs a `#[kernel]` on host tensors with the GPU's semantics, at tile level.
//!
//! Generated `interpret` functions call [`interpret`] with the kernel's program ([`Embedded`]: the
//! checked, lowered kernel that the macro encoded beside its PTX) and the arguments in parameter
//! order. The program is decoded once per process and executed, so the GPU and the CPU run one
//! program, and nothing is parsed at run time. Every failure is an
//! [`Error`]: bad arguments give the GPU launch's errors, a deadlock, a semaphore wait that nothing
//! signals, an out-of-bounds register access or a data race ([Races](#races)) gives
//! [`Error::Interpreter`].
//!
//! # Semantics (the reference for both back ends)
//!
//! **Execution.** The grid comes from the attribute's `grid` expressions over runtime dimensions,
//! parameters and consts, checked as a launch checks it (and it must be whole clusters). Programs
//! run in parallel over the host's cores; the programs of one cluster run together. Within a
//! program, each warpgroup (`warpgroups = n`) is one host thread that executes the whole body
//! (SIMT at warpgroup granularity: `warpgroup_id()` differs, nothing else does). `program_id`,
//! `num_programs`, `warpgroup_id()`, `cluster_rank()` (x fastest) are `i32`.
//!
//! **Values.** Scalars and register arrays belong to a warpgroup. A register array is a dense
//! row-major array of values of its dtype; its layout is metadata only (`to_layout`, `layout_cast`
//! and `broadcast` keep values). Every operation rounds its result to the result's dtype: f32
//! `as f32`; f16/bf16 to nearest even; fp8 to nearest, saturating to the largest finite value; tf32
//! to nearest, ties away (`cvt.rna`); integers wrap to their width; bools are 0/1. Float `+ - * /`
//! are exact then rounded once (which equals the GPU's f32/f16/bf16 instructions); `exp2`, `exp`,
//! `log2`, `log`, `sqrt`, `rsqrt`, `tanh`, `recip` run in f32 with Rust's `f32` functions, so they
//! can differ by a few f32 ulp from the GPU's approximate instructions; `floor`, `ceil`, `round`
//! (ties to even) and `trunc` are exact. `bitcast` goes through each dtype's encoding (a NaN's
//! payload is not kept). `max`/`min` prefer a
//! number to a NaN (PTX `max.f32`). `fma(a, b, c)` rounds `a * b + c` once to f32 (`fma.rn.f32`),
//! then to the dtype (f16 and bf16 go through f32 on the GPU too): the GPU's value. Integer `/`
//! and `%` truncate; dividing by zero is an error; shifts by the width or more give 0 (or the
//! sign, for `>>` of a negative signed value).
//! Casts: float to float rounds as above; float to integer truncates toward zero and saturates,
//! NaN giving 0 (`cvt.rzi.sat`, like Rust's `as`); integer to integer wraps (like Rust's `as`; the
//! GPU keeps integers narrower than 32 bits extended in 32-bit registers and wraps them with `bfe`
//! after each operation that can leave their range); to bool is `!= 0`.
//! Reductions (`sum`, `max`, `min` along an axis) combine left to right, rounding each step.
//! Scalar arithmetic is the same, with untyped literals taking the other operand's dtype (and `&&`,
//! `||` short-circuiting, as in Rust); runtime dimensions and consts are `i32` values. 64-bit integers in arrays and tensors are exact only up
//! to 2^53 (tensors cross [`HostArray`] as `f64`).
//!
//! **Memory.** Each tensor argument becomes a global buffer of values for the launch (stores round
//! to its dtype); `GmemMut` buffers are written back when every program has finished without
//! error. A program's shared memory is one buffer, shared by its warpgroups, with each allocation
//! at its `typeck` offset; it reads as NaN until written. Swizzles and tilings are physical only
//! and do not change which element an index names. Accumulators are per warpgroup and start at
//! zero (`Acc::from_regs` in `run_state` starts from a register array).
//! - `x.tile([i, j], [r, c]).load(..)` / `c.tile([i, j]).store(v)`: the block at element offset
//!   `index * shape`; elements outside the array read as 0 and are not written (the PTX bounds-checks
//!   every global register access the same way).
//! - `copy_gmem_to_smem(tile, dst, bar)` (TMA) reads block `index * dst's stored shape` when
//!   issued (elements outside the array read as 0: the tensor map's zero fill) and counts as one
//!   arrival on `bar` expecting its bytes (`mbarrier.arrive.expect_tx`); the bytes land in `dst`
//!   when that phase of `bar` completes (`complete_tx`), so a `barrier_wait` that sees the phase
//!   complete sees them, and a read before it sees what the buffer held. With `multicast = true`,
//!   as in the PTX, each program of the cluster copies its share of the rows (of the
//!   second-to-last stored dimension) into the buffer of every program, and each program's phase
//!   completes once every program's share has landed in it: every program of the cluster issues
//!   the same copy and waits on its own barrier. Reusing a multicast destination needs the
//!   cluster's programs in step (`barrier_arrive(bar, cluster = true)` releases), or it races.
//! - `copy_smem_to_peer(src, dst, bar, rank)` reads `src` when issued and counts as one arrival
//!   on program `rank`'s `bar`; the bytes land in that program's `dst` when the phase completes.
//!   That program has entered the scope by then, since entering and leaving a scope that
//!   allocates barriers is a cluster-wide barrier in a cluster (as `barrier.cluster.arrive` /
//!   `wait` make it on the GPU), so the bytes never land in memory an earlier scope of the peer
//!   still uses; a rank outside the cluster is an `Error::Interpreter`.
//! - `copy_smem_to_gmem(src, tile)` writes when issued, dropping elements outside the array; for
//!   the race detector it reads `src` at some point before the `wait_smem_to_gmem(n)` that covers
//!   it (all but the latest `n` stores), and writes the tile at some point before the
//!   `wait_smem_to_gmem(n, complete = true)` that covers it. `commit_smem` is the
//!   async-proxy fence the detector checks; `set_max_registers` does nothing.
//! - `copy_smem_to_gmem(src, tile, reduce = Reduce::Op)` is the same store, but combines each
//!   element into the tile's (`add` rounding to the array's dtype, integers wrapping; `min`, `max`,
//!   `inc`, `dec`, `and`, `or`, `xor` as PTX defines them), and `tile.atomic_add(v)` adds a register
//!   array's elements into the tile's (dropping those outside the array, as a store does). Each
//!   element's update is one atomic read-modify-write of its cell, so concurrent programs' updates
//!   are never lost; `f32` adds flush subnormal inputs and results to zero, as
//!   `red.global.add.f32` does. A warpgroup updates its elements in row-major order when the
//!   operation is issued; different programs' updates of one element land in the order the host
//!   threads run them, and on the GPU in an order the hardware chooses, so a floating-point sum
//!   may differ in its last bits from run to run and between the GPU and the interpreter (exact
//!   for values whose partial sums are exact, such as small integers).
//!
//! **Matrix products.** `wgmma(acc, a, b)` reads its operands when issued and adds
//! `A[M, K] @ B[K, N]` to `acc` at the `wgmma_wait(n)` that covers it (all but the latest `n`
//! wgmmas of the warpgroup complete there, in order), `A` a
//! shared-memory view or a register array and `B` a shared-memory view (`.t()` / `Transposed`
//! swap the last two dimensions of the stored buffer, `.at(s)` selects a slab, `.slice` a window).
//! Operands are values of their dtype (tf32: the low 13 mantissa bits are ignored); products are
//! exact; the products of each K block of one instruction (`legality::wgmma_row(..).k_step`) are
//! summed exactly and added to the accumulator with one rounding to f32 (then to f16 for an f16
//! accumulator), or wrapping to i32 for i8 operands. `mma(acc, a, b)` is the same with the `mma`
//! instruction's K (`legality::mma_row`), synchronously, and returns the new accumulator array.
//!
//! **Barriers.** `Barrier<arrivals, count>` (default 1, 1) completes a phase after `arrivals`
//! arrivals. `barrier_arrive(bar)` is one arrival per warpgroup that executes it (one elected
//! thread on the GPU); with `cluster = true`, one on the barrier of every program of the cluster
//! (which has entered the barrier's scope: the entry is a cluster-wide barrier, after
//! `mbarrier.init`, as in the PTX); a TMA load is one arrival. `barrier_wait(bar)` blocks the
//! warpgroup until the phase it waits for completes: each warpgroup counts its own waits on each
//! barrier and waits with that count's parity, exactly like `mbarrier.try_wait.parity` with a
//! per-thread parity bit (so two TMA loads on a `Barrier<1>` complete two phases, and the wait for
//! the first phase then waits for the third). As in the PTX, entering a `run_scoped` that allocates
//! shared memory or barriers, and leaving one that allocates barriers, is a program-wide barrier
//! (`bar.sync 0`): every warpgroup must execute such a scope (a finished warpgroup counts as
//! arrived), and a scope's shared memory is never reused by the next scope while a warpgroup still
//! uses it. Barriers are initialised at each entry of their scope. In a cluster, entering (once the
//! barriers are initialised) and leaving a scope that allocates barriers is also a cluster-wide
//! barrier, as `barrier.cluster.arrive` / `wait` make it in the PTX. When every running warpgroup
//! of a cluster's programs is blocked (waiting for a phase that has not completed, or at a program-
//! or cluster-wide barrier; a cluster-wide arrival lets one program wait on another), the launch
//! stops with an error naming each blocked warpgroup, its barrier (`bar`, `full.at(2)`), the phase
//! it waits for and the barrier's arrivals. The interpreter never hangs and never panics: a panic
//! inside it is reported as [`Error::Internal`].
//!
//! **Semaphores.** `semaphore_signal(sems, i, n)` adds `n` (default 1; a `u32`, wrapping at 2^32)
//! to element `i` of the `u32` array `sems`, once per warpgroup that executes it, with a release
//! read-modify-write (to each element of `i..end` for `semaphore_signal(sems, i..end, n)`, every
//! index checked first); `semaphore_wait(sems, i, n)` polls the element (yielding, then sleeping
//! 50 µs between polls) until it holds at least `n`, then takes `n` with an acquire compare-exchange,
//! so the loads after a wait see the stores the signalling warpgroup made before its signal. An
//! index outside the array is an error. A wait always ends: it stops when its cluster fails, and
//! gives up without an error of its own when another cluster fails (the launch halts, and that
//! failure is reported); when no program of the launch has made progress (a loop iteration, a
//! signal, a cluster started) for 10 s while it waits, it fails naming the array, the index and
//! what the semaphore holds, and saying that no program signalled it: a predecessor that computes
//! for a long time is waited for, however long. `TESSEL_SEMAPHORE_WAIT_MS` sets that limit in
//! milliseconds (an invalid value is an [`Error::Interpreter`] at launch). Clusters are claimed in
//! increasing order (x fastest) by as many workers as the host has cores, or, for a kernel that
//! waits on semaphores, by as many as an H200 runs such programs at once (132), so when a program
//! runs, every lower-numbered cluster has started: a program may wait for signals from its own
//! cluster and from lower-numbered ones, and from the others of a run of 132 or fewer consecutive
//! programs that wait on each other (the split-K kernels' tiles); another wait for a
//! higher-numbered program may never be satisfied. (On the GPU, likewise, a program may wait only
//! for programs that can be resident while it waits: a grid's programs are not all resident at
//! once.)
//!
//! **Several devices.** A kernel with `devices = W` runs through [`interpret_group`]: each device's
//! arguments are checked as a launch checks them, each tensor has one shape on every device, and
//! every device's grid runs in the one schedule, clusters claimed device by device within each
//! cluster index (so the programs that a ring's neighbours wait for run at once, as the devices of
//! a group run their grids at once), as many programs at once as `W` H200s for a kernel that waits
//! on semaphores. Each device has its own copy of every global array; `device_id()` is its rank,
//! and `remote(buf, rank)` is device `rank`'s copy of a `#[peers]` array (a rank outside the group
//! is an error). Signals and waits on a `#[peers]` array's counters are the same release and
//! acquire as any semaphore's, across devices; a wait that nothing will signal fails as any wait
//! does (its message names the device), so devices that wait for each other are an error, never a
//! hang. The race detector treats each device's memory apart and names the device in its
//! messages: a write into another device's memory that the peer reads without a signal after it,
//! or a TMA store whose writes were not completed (`wait_smem_to_gmem(n, complete = true)`)
//! before that signal, is a race.
//!
//! # Races
//!
//! The interpreter is a race detector, on by default: two accesses to shared or global memory, at
//! least one a write, that nothing orders, or a read or write of an accumulator while a wgmma that
//! writes it is in flight, stop the launch with an [`Error::Interpreter`] naming both accesses by
//! operation and source location (`file:line:column` of the kernel), program and warpgroup, the
//! buffer and element, and what would order them. "Ordered" is happens-before, tracked with vector
//! clocks whatever the order the host threads ran in, so a race is found on every run, not only on
//! an unlucky one:
//! - program order within a warpgroup; a TMA load or peer copy is ordered before whoever waits
//!   for the phase it arrives in (`barrier_wait`), a wgmma before its `wgmma_wait`, a TMA store's
//!   read of shared memory before its `wait_smem_to_gmem` and its write of global memory before
//!   its `wait_smem_to_gmem(n, complete = true)`: until then their bytes are in flight;
//! - `barrier_arrive` (also `cluster = true`) before the waits that see its phase complete; the
//!   program- and cluster-wide barriers of `run_scoped` between every warpgroup they join;
//!   `semaphore_signal` before the `semaphore_wait` that takes from its counter;
//! - a register store into shared memory reaches the reads of TMA stores, peer copies and wgmmas
//!   (the async proxy) only through a `commit_smem()` after it (`fence.proxy.async`), by the
//!   storing warpgroup or one ordered after it;
//! - atomic updates of global memory (`.atomic_add`, reducing TMA stores) need no order among
//!   themselves, but a load or store of the same element must be ordered with each of them.
//!
//! `Gmem` arrays are never written, so their reads are not tracked; semaphore counters are
//! atomics. The kinds it reports include a read of a buffer before its copy's barrier wait (or
//! after a wait that returned early because the phase got more arrivals than declared; too few
//! arrivals leave the wait blocked, which is reported as a deadlock), a buffer overwritten while a
//! wgmma or a TMA store may still read it, an accumulator read before its `wgmma_wait`, a TMA
//! store or wgmma of register stores without `commit_smem()`, warpgroups sharing a buffer without
//! a barrier, and programs sharing global memory without a semaphore.
//!
//! Turn it off with `TESSEL_RACE_CHECK=0` (`1` turns it on; another value is an
//! [`Error::Interpreter`] at launch), or for the `interpret` calls of one closure with
//! [`with_race_check`]`(false, || ..)`. Off, the interpreter runs the same semantics (copies land
//! and wgmmas complete at their waits) without the bookkeeping, as fast as before the detector.
//! Its cost, measured in a release build on a busy 2-core host (median of 15 runs of the
//! `interpret` call each): the 256 x 256 x 512 bf16 GEMM of `examples/quickstart.rs`, 0.044 s on
//! against 0.025 s off (1.8x; the whole example, with its f64 reference, 0.19 s against 0.17 s);
//! a 512 x 512 x 512 bf16 GEMM, 0.19 s against 0.12 s (1.6x). Memory: a 36-byte shadow cell per
//! byte of each program's shared memory and per element of each `GmemMut` array.

mod access;
mod atomic;
mod barrier;
mod bind;
mod effects;
mod exec;
mod matmul;
mod memory;
mod numeric;
mod ops;
mod race;
mod schedule;
mod semaphore;
mod sync;
mod tma;
mod value;

pub use race::{with_race_check, RACE_CHECK_VAR};

use std::panic::{catch_unwind, AssertUnwindSafe};
use std::sync::OnceLock;

use tessel_ir::{codec, compress, Program};

use crate::{Element, Error, HostTensor, Result};

/// A kernel's program as the macro embeds it: the encoded bytes, compressed, and the program
/// decoded from them on first use. Generated code holds one in a `static`.
#[derive(Debug)]
pub struct Embedded {
    /// `tessel_ir::codec::to_bytes`'s `len` bytes, deflated (`tessel_ir::compress`).
    deflated: &'static [u8],
    len: usize,
    program: OnceLock<std::result::Result<Program, String>>,
}

impl Embedded {
    /// The program encoded (`tessel_ir::codec::to_bytes`) into `len` bytes, then deflated into
    /// `deflated` (`tessel_ir::compress::deflate`).
    pub const fn deflated(deflated: &'static [u8], len: usize) -> Embedded {
        Embedded { deflated, len, program: OnceLock::new() }
    }

    /// The decoded program. An error means the bytes came from another version of tessel's macro
    /// (the macro and this runtime are one release): an [`Error::Internal`].
    fn program(&'static self) -> Result<&'static Program> {
        let decoded = self.program.get_or_init(|| {
            let bytes = compress::inflate(self.deflated, self.len).map_err(|e| e.to_string())?;
            codec::from_bytes(&bytes).map_err(|e| e.to_string())
        });
        decoded.as_ref().map_err(|e| Error::Internal(format!("the embedded kernel program cannot be read: {e}")))
    }
}

/// One argument of [`interpret`], in parameter order.
pub enum Arg<'a> {
    /// A tensor for a `Gmem` parameter.
    Tensor(&'a dyn HostArray),
    /// A tensor for a `GmemMut` parameter (also accepted for `Gmem`); written back on success.
    TensorMut(&'a mut dyn HostArray),
    I32(i32),
    U32(u32),
    I64(i64),
    U64(u64),
    F32(f32),
}

impl Arg<'_> {
    /// A scalar argument's copy (`None` for a tensor).
    fn copy_scalar<'b>(&self) -> Option<Arg<'b>> {
        Some(match *self {
            Arg::I32(v) => Arg::I32(v),
            Arg::U32(v) => Arg::U32(v),
            Arg::I64(v) => Arg::I64(v),
            Arg::U64(v) => Arg::U64(v),
            Arg::F32(v) => Arg::F32(v),
            Arg::Tensor(_) | Arg::TensorMut(_) => return None,
        })
    }

    /// What the argument is, for messages.
    fn describe(&self) -> String {
        match self {
            Arg::Tensor(t) => format!("a {} tensor of shape {:?}", t.dtype(), t.shape()),
            Arg::TensorMut(t) => format!("a {} tensor of shape {:?}", t.dtype(), t.shape()),
            Arg::I32(_) => "an i32".into(),
            Arg::U32(_) => "a u32".into(),
            Arg::I64(_) => "an i64".into(),
            Arg::U64(_) => "a u64".into(),
            Arg::F32(_) => "an f32".into(),
        }
    }
}

/// A host array the interpreter can read and write, whatever its element type.
pub trait HostArray: Send + Sync {
    /// The tessel dtype name of the elements (`"bf16"`, `"f32"`...).
    fn dtype(&self) -> &'static str;
    /// The shape, outermost axis first.
    fn shape(&self) -> &[usize];
    /// Every element as `f64`, in row-major order.
    fn read_f64(&self) -> Vec<f64>;
    /// Overwrites every element, rounding each value to the element type (`values` is in row-major
    /// order and has one value per element).
    fn write_f64(&mut self, values: &[f64]);
}

impl<T: Element> HostArray for HostTensor<T> {
    fn dtype(&self) -> &'static str {
        T::DTYPE
    }

    fn shape(&self) -> &[usize] {
        HostTensor::shape(self)
    }

    fn read_f64(&self) -> Vec<f64> {
        self.data().iter().map(|&x| x.to_f64()).collect()
    }

    fn write_f64(&mut self, values: &[f64]) {
        for (x, &v) in self.data_mut().iter_mut().zip(values) {
            *x = T::from_f64(v);
        }
    }
}

/// Runs a kernel on the CPU: decodes its program (once per process), checks and binds `args` like
/// a GPU launch, runs every program of the grid, and writes `GmemMut` tensors back. On an error,
/// nothing is written back; nor for an empty batch (a ragged dimension of 0 with every written
/// array empty), which runs no program and returns `Ok`, as a launch does.
pub fn interpret(embedded: &'static Embedded, args: &mut [Arg<'_>]) -> Result<()> {
    let prog = embedded.program()?;
    // Worker threads catch their own panics; this catches any elsewhere (binding, writing back).
    catch_unwind(AssertUnwindSafe(|| {
        let Some(launch) = bind::bind(prog, args)? else { return Ok(()) };
        schedule::run(prog, &launch)?;
        bind::write_back(prog, &launch, 0, args);
        Ok(())
    }))
    .unwrap_or_else(|_| Err(Error::Internal(format!("the interpreter panicked running `{}`", prog.name))))
}

/// One argument of [`interpret_group`], in parameter order: a tensor per device of the group for
/// a global array (`#[peers]` or not), or a scalar, the same on every device.
pub enum GroupArg<'a> {
    /// Device `d`'s tensor at `d`, for a `Gmem` parameter.
    Tensors(Vec<&'a dyn HostArray>),
    /// Device `d`'s tensor at `d`, for a `GmemMut` parameter; written back on success.
    TensorsMut(Vec<&'a mut dyn HostArray>),
    /// A scalar (`Arg::I32`, ..), passed to every device.
    Scalar(Arg<'a>),
}

/// Runs a kernel of several devices (`devices = W`) on the CPU: every device's grid in one
/// schedule, each device with its own arguments (one tensor per device for each global array),
/// a `#[peers]` array's copies reachable from every device through `remote(..)`. Each device's
/// arguments are checked as a launch checks them, each tensor must have one shape on every
/// device ([`Error::RankShape`]), and a global array needs exactly `W` tensors
/// ([`Error::RankCount`]); then the devices run, and their `GmemMut` tensors are written back once
/// every program of every device has finished without error.
pub fn interpret_group(embedded: &'static Embedded, args: Vec<GroupArg<'_>>) -> Result<()> {
    let prog = embedded.program()?;
    catch_unwind(AssertUnwindSafe(|| {
        let mut ranks = split_ranks(prog, args)?;
        let views: Vec<&[Arg<'_>]> = ranks.iter().map(Vec::as_slice).collect();
        let Some(launch) = bind::bind_group(prog, &views)? else { return Ok(()) };
        schedule::run(prog, &launch)?;
        for (device, args) in ranks.iter_mut().enumerate() {
            bind::write_back(prog, &launch, device, args);
        }
        Ok(())
    }))
    .unwrap_or_else(|_| Err(Error::Internal(format!("the interpreter panicked running `{}`", prog.name))))
}

/// Each device's arguments (`Arg`s in parameter order) from the group's; a global array with other
/// than one tensor per device is an [`Error::RankCount`].
fn split_ranks<'a>(prog: &'static Program, args: Vec<GroupArg<'a>>) -> Result<Vec<Vec<Arg<'a>>>> {
    let w = prog.device_count();
    if args.len() != prog.params.len() {
        return Err(Error::Interpreter(format!(
            "`{}` takes {} arguments, but {} were given",
            prog.name,
            prog.params.len(),
            args.len()
        )));
    }
    let mut ranks: Vec<Vec<Arg<'a>>> = (0..w).map(|_| Vec::with_capacity(args.len())).collect();
    for (p, a) in prog.params.iter().zip(args) {
        let count = |got: usize| match got == w {
            true => Ok(()),
            false => Err(Error::RankCount { argument: p.name.as_str(), expected: w, got }),
        };
        match a {
            GroupArg::Tensors(ts) => {
                count(ts.len())?;
                ranks.iter_mut().zip(ts).for_each(|(r, t)| r.push(Arg::Tensor(t)));
            }
            GroupArg::TensorsMut(ts) => {
                count(ts.len())?;
                ranks.iter_mut().zip(ts).for_each(|(r, t)| r.push(Arg::TensorMut(t)));
            }
            GroupArg::Scalar(s) => {
                for r in &mut ranks {
                    r.push(s.copy_scalar().ok_or_else(|| {
                        Error::Internal(format!("`{}`: a tensor passed as the scalar `{}`", prog.name, p.name))
                    })?);
                }
            }
        }
    }
    Ok(ranks)
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::LazyLock;

    #[test]
    fn an_embedded_program_that_does_not_inflate_is_an_internal_error() {
        static CORRUPT: Embedded = Embedded::deflated(&[0xff; 8], 64);
        let err = interpret(&CORRUPT, &mut []).unwrap_err();
        assert!(matches!(err, Error::Internal(_)), "{err}");
        assert!(err.to_string().contains("the embedded kernel program cannot be read"), "{err}");
    }

    #[test]
    fn an_embedded_program_of_another_format_is_an_internal_error() {
        static OTHER: LazyLock<Vec<u8>> = LazyLock::new(|| compress::deflate(b"TSL\0\x7f"));
        static EMBEDDED: LazyLock<Embedded> = LazyLock::new(|| Embedded::deflated(&OTHER, 5));
        let err = interpret(&EMBEDDED, &mut []).unwrap_err();
        assert!(err.to_string().contains("format version 127"), "{err}");
    }
}
