//! The split-K kernels (`split_k!` in `kernels/matmul.rs`, `scaled_split_k!` in
//! `kernels/quantized.rs`, `linear_split!` in `kernels/linear.rs`): the part of their text they
//! share ([`split_k_text!`]) and the global memory they hand partial products through.
//!
//! K is split over `ways` programs per 128 x 128 tile of C. Each program but the tile's last
//! stores its sum (64 rows per consumer) into `partial` and signals the consumer's semaphore; the
//! last program waits for them all. A launch that completes leaves every semaphore at zero, so
//! one workspace serves launch after launch: one per device and partial type, allocated by the
//! first launch that needs it, grown for larger ones, kept for the process. Its tensors remember
//! the stream they were allocated on, and a kernel on another stream is ordered after the
//! launches that used them there, so two launches never use it at once.
//!
//! The sums go through global memory, and the last program copies them in by TMA (two blocks
//! deep) into buffers that take its pipeline's shared memory once the main loop is done: on the
//! H200 that cost 0.6-0.8 us per program's sums, against about 1.1 us for loads into registers
//! and as much for the earlier versions' copies between the two programs of a 2 x 1 cluster
//! (`copy_smem_to_peer`), which also kept 64 KiB of shared memory from the stages
//! (`bench/results/split-tma/`). The adding is still what limits how many ways pay: each program's
//! 64 KiB reach the last one's SM alone ([`waves::split_ways`](super::waves::split_ways)).

use std::sync::Mutex;

/// Instantiates a split-K kernel text (its `@kernel` arm) with what every split-K kernel does:
/// `shares`, its place among the tile's `ways` programs and its share of K's `BK`-wide steps
/// (`tile`, `share`, `first`, `steps`, the tile's `ti` and `tj`, and whether it `stores` the
/// tile), and `exchange`, run by each consumer `h` after its main loop, which leaves the tile's
/// whole sum in the accumulator of the program that stores it: every program but the last
/// stores its sum into its block of `partial` and signals the consumer's semaphore; the last
/// waits for the others and adds their sums, in order (the same sum, bit for bit, every launch),
/// copying them into `part` (two 64 x 128 buffers per consumer) on the `loaded` barriers (two
/// per consumer), which the text allocates where the exchange runs.
macro_rules! split_k_text {
    ($text:ident!(@kernel $($args:tt)*)) => {
        $text!(@kernel $($args)*,
               shares = (
                   // Program `share` of the tile's `ways` takes K's steps
                   // [share * all / ways, (share + 1) * all / ways).
                   let (tile, share, all_steps) = (program_id(0) / ways, program_id(0) % ways, cdiv(K, BK));
                   let first = share * all_steps / ways;
                   let steps = (share + 1) * all_steps / ways - first;
                   let (ti, tj) = (tile / cdiv(N, BN), tile % cdiv(N, BN));
                   let stores = share + 1 == ways;
               ),
               exchange = (
                   // This consumer's half of the tile: its semaphore, and its blocks of
                   // `partial`, one per program but the last.
                   let slot = 2 * tile + h;
                   if !stores {
                       partial.tile([(ways - 1) * slot + share, 0], [64, BN]).store(acc.load());
                       semaphore_signal(sems, slot);
                   } else {
                       semaphore_wait(sems, slot, ways - 1);
                       // The others' sums come in by TMA, two buffers deep: block q lands in
                       // buffer q % 2 while block q - 1 is added.
                       let (blocks, first_block) = (ways - 1, (ways - 1) * slot);
                       copy_gmem_to_smem(partial.tile([first_block, 0], [64, BN]), part.at(h).at(0), loaded.at(2 * h));
                       for q in 0..blocks {
                           if q + 1 < blocks {
                               let next = partial.tile([first_block + q + 1, 0], [64, BN]);
                               copy_gmem_to_smem(next, part.at(h).at((q + 1) % 2), loaded.at(2 * h + (q + 1) % 2));
                           }
                           barrier_wait(loaded.at(2 * h + q % 2));
                           acc.store(acc.load() + part.at(h).at(q % 2).load(Layout::Wgmma));
                           // Every thread has read the buffer before the copy after next rewrites it.
                           commit_smem();
                       }
                   }
               ));
    };
}

use tessel::prelude::*;
use tessel::{AsStream, Element};

use super::waves::split_ways_arg;

/// A split-K kernel's workspace, with partial sums of type `T` (the kernel's accumulator):
/// `ways - 1` blocks of 64 KiB (f32 or i32) per 128 x 128 tile: at most 7 MiB for the splits
/// the dispatchers choose (16 tiles split 8 ways), more for one forced on a larger output.
pub struct Workspace<T: Element> {
    /// `ways - 1` blocks of 64 x 128 sums for each consumer of each tile.
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
    /// The shapes of `partial` and `sems` for an M x N output, K split `ways` ways.
    pub fn shapes(m: usize, n: usize, ways: usize) -> [Vec<usize>; 2] {
        let tiles = m.div_ceil(128) * n.div_ceil(128);
        [vec![64 * 2 * tiles * ways.saturating_sub(1), 128], vec![2 * tiles]]
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
