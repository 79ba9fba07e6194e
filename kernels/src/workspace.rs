//! The global memory that the split-K kernels (`matmul_split` in `kernels/src/matmul.rs`,
//! `scaled_matmul_split` in `kernels/src/quantized.rs`, `linear_split` in `kernels/src/linear.rs`)
//! hand partial products through.
//!
//! K is split over `ways` programs per 128 x 128 tile of C. Every program stores its sum (64 rows
//! per consumer) into `partial` and signals the other programs' semaphores; then each adds up the
//! slices of the tile it owns, the others' sums of them copied in by TMA into shared memory its
//! pipeline's stages used, and stores them (the kernel functions of
//! [`gemm_fns::split_k`](crate::gemm_fns::split_k)). A launch that completes leaves every semaphore
//! at zero, so one workspace serves launch after launch: one per device and partial type, allocated
//! by the first launch that needs it, grown for larger ones, kept for the process. Its tensors
//! remember the stream they were allocated on, and a kernel on another stream is ordered after
//! the launches that used them there, so two launches never use it at once.
//!
//! Why the adding is spread over the tile's programs: what one SM takes in from L2 is about 100
//! GB/s on the H200, so a last program that took in all the others' 64 KiB sums spent 0.6-0.8 us
//! on each (about 1.1 us loading them into registers, as much for the earlier versions' copies
//! between the two programs of a 2 x 1 cluster), while each program now takes in at most the
//! others' slices of a quarter of its rows: 8 ways measured 8-15% faster, 2 and 3 ways 2-5%
//! slower (the signals to every other program; commit c665a77, `docs/experiments.md`). It needs
//! every program of a tile running at once, as the GPU runs them when they fit in its SMs (the
//! dispatchers' splits do; the ids of a tile's programs are consecutive, so a larger forced split
//! still makes progress as earlier tiles finish) and as the interpreter runs them for a kernel that
//! waits on semaphores.

use std::sync::Mutex;

use tessel::prelude::*;
use tessel::{AsStream, Element};

use crate::waves::split_ways_arg;

/// A split-K kernel's workspace, with partial sums of type `T` (the kernel's accumulator):
/// a 64 KiB block (f32 or i32) per program: at most 132 programs, 8.25 MiB, for the splits the
/// dispatchers choose, more for one forced on a larger output.
pub struct Workspace<T: Element> {
    /// A block of 64 x 128 sums for each consumer of each program of each tile.
    partial: DeviceTensor<T>,
    /// A semaphore for each consumer of each program of each tile, at zero between launches.
    sems: DeviceTensor<u32>,
}

/// The partial sums' types, each with its workspaces (one per device).
pub trait Partial: Element {
    /// This type's workspaces.
    fn workspaces() -> &'static Mutex<Vec<Workspace<Self>>>;
}

impl Partial for f32 {
    fn workspaces() -> &'static Mutex<Vec<Workspace<f32>>> {
        static ALL: Mutex<Vec<Workspace<f32>>> = Mutex::new(Vec::new());
        &ALL
    }
}

impl Partial for i32 {
    fn workspaces() -> &'static Mutex<Vec<Workspace<i32>>> {
        static ALL: Mutex<Vec<Workspace<i32>>> = Mutex::new(Vec::new());
        &ALL
    }
}

impl<T: Partial> Workspace<T> {
    /// The shapes of `partial` and `sems` for an M x N output, K split `ways` ways.
    pub fn shapes(m: usize, n: usize, ways: usize) -> [Vec<usize>; 2] {
        let halves = 2 * m.div_ceil(128) * n.div_ceil(128) * ways;
        [vec![64 * halves, 128], vec![halves]]
    }

    /// Runs `f` (an interpretation) with a new workspace for an M x N output split `ways`
    /// programs per tile, and `ways` as the kernel takes it.
    pub fn on_host(
        m: usize,
        n: usize,
        ways: usize,
        f: impl FnOnce(&mut HostTensor<T>, &mut HostTensor<u32>, i32) -> tessel::Result<()>,
    ) -> tessel::Result<()> {
        let arg = split_ways_arg(ways)?;
        let [partial, sems] = Self::shapes(m, n, ways);
        f(&mut HostTensor::zeros(partial)?, &mut HostTensor::zeros(sems)?, arg)
    }

    /// Runs `f` (a launch) with the device's workspace, large enough for an M x N output split
    /// `ways` programs per tile, and `ways` as the kernel takes it.
    pub fn on_device(
        stream: &impl AsStream,
        m: usize,
        n: usize,
        ways: usize,
        f: impl FnOnce(&mut DeviceTensor<T>, &mut DeviceTensor<u32>, i32) -> tessel::Result<()>,
    ) -> tessel::Result<()> {
        let arg = split_ways_arg(ways)?;
        let ordinal = stream.as_stream().context().ordinal();
        let [mut partial, mut sems] = Self::shapes(m, n, ways);
        // A poisoned lock only means that another thread panicked holding it; the workspace is
        // intact (every launch that completes leaves the semaphores at zero).
        let mut all = T::workspaces().lock().unwrap_or_else(|poisoned| poisoned.into_inner());
        let mine = all.iter().position(|w| w.partial.ordinal() == ordinal);
        let i = match mine {
            Some(i) if all[i].partial.shape()[0] >= partial[0] && all[i].sems.shape()[0] >= sems[0] => i,
            _ => {
                // Grown to cover this shape and every earlier one (freeing the old one is
                // ordered after the launches that use it).
                if let Some(old) = mine.map(|i| all.swap_remove(i)) {
                    partial[0] = partial[0].max(old.partial.shape()[0]);
                    sems[0] = sems[0].max(old.sems.shape()[0]);
                }
                let (partial, sems) = (DeviceTensor::zeros(stream, partial)?, DeviceTensor::zeros(stream, sems)?);
                all.push(Workspace { partial, sems });
                all.len() - 1
            }
        };
        let w = &mut all[i];
        f(&mut w.partial, &mut w.sems, arg)
    }
}
