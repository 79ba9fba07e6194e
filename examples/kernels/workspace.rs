//! The split-K kernels (`split_k!` in `kernels/matmul.rs`, `scaled_split_k!` in
//! `kernels/quantized.rs`, `linear_split!` in `kernels/linear.rs`): the part of their text they
//! share ([`split_k_text!`]) and the global memory they hand partial products through.
//!
//! K is split over `2 * pairs` programs per 128 x 128 tile of C, pairs of 2 x 1 clusters. Each
//! pair but the last stores its sum (64 rows per consumer) into `partial` and signals the
//! consumer's semaphore; the last pair waits for them all. A launch that completes leaves every
//! semaphore at zero, so one workspace serves launch after launch: one per device and partial
//! type, allocated by the first launch that needs it, grown for larger ones, kept for the process.
//! Its tensors remember the stream they were allocated on, and a kernel on another stream is
//! ordered after the launches that used them there, so two launches never use it at once.

use std::sync::Mutex;

/// Instantiates a split-K kernel text (its `@kernel` arm) with what every split-K kernel does:
/// `shares`, its place among the tile's `2 * pairs` programs and its share of K's `BK`-wide steps
/// (`rank`, `tile`, `pair`, `first`, `steps`, the tile's `ti` and `tj`, and whether it `stores`
/// the tile), and `exchange`, run by each consumer `h` after its main loop, which leaves the
/// tile's whole sum in the accumulator of the program that stores it: in each cluster the second
/// program sends its partial product into the first one's `part` (`copy_smem_to_peer`, one
/// arrival on `received`); every pair but the last stores the first program's sum into its
/// blocks of `partial` and signals the consumer's semaphore; the last pair waits for the others
/// and adds their sums.
macro_rules! split_k_text {
    ($text:ident!(@kernel $($args:tt)*)) => {
        $text!(@kernel $($args)*,
               shares = (
                   // Pair `pair` of the tile's clusters; its program `rank` takes share
                   // 2 * pair + rank of K's steps: [share * all / ways, (share + 1) * all / ways).
                   let (rank, unit, all_steps, ways) = (cluster_rank(), program_id(0) / 2, cdiv(K, BK), 2 * pairs);
                   let (tile, pair) = (unit / pairs, unit % pairs);
                   let share = 2 * pair + rank;
                   let first = share * all_steps / ways;
                   let steps = (share + 1) * all_steps / ways - first;
                   let (ti, tj) = (tile / cdiv(N, BN), tile % cdiv(N, BN));
                   let stores = pair + 1 == pairs && rank == 0;
               ),
               exchange = (
                   if rank == 1 {
                       part.at(h).store(acc.load());
                       commit_smem();
                       copy_smem_to_peer(part.at(h), part.at(h), received, 0);
                   } else {
                       barrier_wait(received);
                       acc.store(acc.load() + part.at(h).load(Layout::Wgmma));
                       // This consumer's half of the tile: its semaphore, and its blocks of
                       // `partial`, one per pair but the last.
                       let slot = 2 * tile + h;
                       if pair + 1 < pairs {
                           partial.tile([(pairs - 1) * slot + pair, 0], [64, BN]).store(acc.load());
                           semaphore_signal(sems, slot);
                       } else if pairs > 1 {
                           semaphore_wait(sems, slot, pairs - 1);
                           for q in 0..pairs - 1 {
                               let other = partial.tile([(pairs - 1) * slot + q, 0], [64, BN]);
                               acc.store(acc.load() + other.load(Layout::Wgmma));
                           }
                       }
                   }
               ));
    };
}

use tessel::prelude::*;
use tessel::{AsStream, Element};

use super::waves::split_pairs;

/// A split-K kernel's workspace, with partial sums of type `T` (the kernel's accumulator):
/// `pairs - 1` blocks of 64 KiB (f32 or i32) per 128 x 128 tile: at most 3 MiB for the splits
/// the dispatchers choose (16 tiles split 8 ways), more for one forced on a larger output.
pub struct Workspace<T: Element> {
    /// `pairs - 1` blocks of 64 x 128 sums for each consumer of each tile.
    partial: DeviceTensor<T>,
    /// Two semaphores per tile, at zero between launches.
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
    /// The shapes of `partial` and `sems` for an M x N output, K split over `pairs` pairs.
    pub fn shapes(m: usize, n: usize, pairs: i32) -> [Vec<usize>; 2] {
        let tiles = m.div_ceil(128) * n.div_ceil(128);
        let blocks = 2 * tiles * usize::try_from(pairs - 1).unwrap_or(0);
        // One block at least, unused with one pair (the GPU tests ran with it; an empty
        // `partial` works in the interpreter, but no launch has passed one on the GPU).
        [vec![64 * blocks.max(1), 128], vec![2 * tiles]]
    }

    /// Runs `f` (an interpretation) with a new workspace for an M x N output split `ways`
    /// programs per tile, and the pairs of clusters per tile.
    pub fn on_host(
        m: usize,
        n: usize,
        ways: usize,
        f: impl FnOnce(&mut HostTensor<T>, &mut HostTensor<u32>, i32) -> tessel::Result<()>,
    ) -> tessel::Result<()> {
        let pairs = split_pairs(ways)?;
        let [partial, sems] = Self::shapes(m, n, pairs);
        f(&mut HostTensor::zeros(partial)?, &mut HostTensor::zeros(sems)?, pairs)
    }

    /// Runs `f` (a launch) with the device's workspace, large enough for an M x N output split
    /// `ways` programs per tile, and the pairs of clusters per tile.
    pub fn on_device(
        stream: &impl AsStream,
        m: usize,
        n: usize,
        ways: usize,
        f: impl FnOnce(&mut DeviceTensor<T>, &mut DeviceTensor<u32>, i32) -> tessel::Result<()>,
    ) -> tessel::Result<()> {
        let pairs = split_pairs(ways)?;
        let ordinal = stream.as_stream().context().ordinal();
        let [mut partial, mut sems] = Self::shapes(m, n, pairs);
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
        f(&mut w.partial, &mut w.sems, pairs)
    }
}
