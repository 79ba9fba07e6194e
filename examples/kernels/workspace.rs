//! The global memory that the split-K kernels (`split_k!` in `kernels/matmul.rs`,
//! `scaled_split_k!` in `kernels/quantized.rs`) hand partial products through, and the count of
//! their programs per tile.
//!
//! K is split over `2 * pairs` programs per 128 x 128 tile of C, pairs of 2 x 1 clusters. Each
//! pair but the last stores its sum (64 rows per consumer) into `partial` and signals the
//! consumer's semaphore; the last pair waits for them all. A launch that completes leaves every
//! semaphore at zero, so one workspace serves launch after launch: one per device and partial
//! type, allocated by the first launch that needs it, grown for larger ones, kept for the process.
//! Its tensors remember the stream they were allocated on, and a kernel on another stream is
//! ordered after the launches that used them there, so two launches never use it at once.

use std::sync::Mutex;

use tessel::prelude::*;
use tessel::{AsStream, Element};

/// A split-K kernel's workspace, with partial sums of type `T` (the kernel's accumulator).
pub struct Workspace<T: Element> {
    /// `pairs - 1` blocks of 64 x 128 sums for each consumer of each tile.
    pub partial: DeviceTensor<T>,
    /// Two semaphores per tile, at zero between launches.
    pub sems: DeviceTensor<u32>,
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
    /// The shapes of `partial` and `sems` for an M x N output, K split over `pairs` pairs.
    pub fn shapes(m: usize, n: usize, pairs: i32) -> [Vec<usize>; 2] {
        let tiles = m.div_ceil(128) * n.div_ceil(128);
        let blocks = 2 * tiles * usize::try_from(pairs - 1).unwrap_or(0);
        // One block at least (unused with one pair): a tensor has no empty dimension.
        [vec![64 * blocks.max(1), 128], vec![2 * tiles]]
    }

    /// The workspace for an interpreted launch: a new one.
    pub fn host(m: usize, n: usize, pairs: i32) -> tessel::Result<(HostTensor<T>, HostTensor<u32>)> {
        let [partial, sems] = Self::shapes(m, n, pairs);
        Ok((HostTensor::zeros(partial)?, HostTensor::zeros(sems)?))
    }

    /// Runs `f` with the device's workspace, large enough for an M x N output split `pairs` ways.
    pub fn with(
        stream: &impl AsStream,
        m: usize,
        n: usize,
        pairs: i32,
        f: impl FnOnce(&mut Workspace<T>) -> tessel::Result<()>,
    ) -> tessel::Result<()> {
        let ordinal = stream.as_stream().context().ordinal();
        let [partial, sems] = Self::shapes(m, n, pairs);
        // A poisoned lock only means that another thread panicked holding it; the workspace is
        // intact (every launch that completes leaves the semaphores at zero).
        let mut all = T::workspaces().lock().unwrap_or_else(|poisoned| poisoned.into_inner());
        let fits = |w: &Workspace<T>| w.partial.shape()[0] >= partial[0] && w.sems.shape()[0] >= sems[0];
        all.retain(|w| w.partial.ordinal() != ordinal || fits(w));
        let i = match all.iter().position(|w| w.partial.ordinal() == ordinal) {
            Some(i) => i,
            None => {
                let (partial, sems) = (DeviceTensor::zeros(stream, partial)?, DeviceTensor::zeros(stream, sems)?);
                all.push(Workspace { partial, sems });
                all.len() - 1
            }
        };
        f(&mut all[i])
    }
}
