//! The kernel functions that the GEMM families ([`matmul`](crate::matmul),
//! [`quantized`](crate::quantized), [`linear`](crate::linear)) share, as libraries
//! (`#[kernel_fns]`) that their `#[kernels]` modules use: [`tiles`], the order in which a
//! persistent program takes its tiles, and [`split_k`], how the programs that share a tile hand
//! each other their partial sums. A kernel of your own uses them as these families do:
//! `#[kernels(uses(tessel_kernels::gemm_fns::split_k))]`.
//!
//! Each function is written so that a call of it compiles to the PTX the family's kernels had with
//! its code written out: its arguments are names the kernel already has (an argument is evaluated
//! once, at the call), and what must be known when the kernel is read (a slice's bounds, a tile's
//! shape) is a const parameter.

use tessel::prelude::*;

/// The tile order of the persistent GEMMs.
#[kernel_fns]
pub mod tiles {
    use tessel::prelude::*;

    /// Unit `u`'s row and column among `unit_rows` x `unit_cols` units, in an L2-friendly order:
    /// GROUP unit-rows at a time, walking down each column.
    pub fn tile_order<const GROUP: usize>(u: i32, unit_rows: i32, unit_cols: i32) -> (i32, i32) {
        let first = u / (GROUP * unit_cols) * GROUP;
        let rows = min(unit_rows - first, GROUP);
        (first + u % (GROUP * unit_cols) % rows, u % (GROUP * unit_cols) / rows)
    }
}

/// The split-K exchange: the programs that share a tile, each with a share of K, add up their
/// partial sums.
///
/// Through global memory ([`Workspace`](crate::workspace::Workspace), for `matmul_split`,
/// `scaled_matmul_split` and `linear_split`): each of the `ways` programs of a 128 x 128 tile
/// stores its sum, 64 rows per consumer `h`, into its block of `partial` (block
/// `ways * slot + share`, `slot = 2 * tile + h`) and signals every other program of the tile
/// (`publish`); then each adds up the 64 x 32 slices `q` of the tile it owns (the slice
/// `q` of consumer `h` to program `(4 * h + q) % ways`), its own sum of it and the others' in the
/// tile's program order, the same sum bit for bit every launch (`slice_sum`), copied by
/// TMA into `part` (SLOTS buffers per consumer, as many on the way at once).
///
/// Down a cluster (for the skinny kernels, `pass_down`): program SPLIT - 1 sends its sum
/// into SPLIT - 2's `part` with `copy_smem_to_peer`, which adds its own and sends on, until
/// program 0 has the whole sum.
#[kernel_fns]
pub mod split_k {
    use tessel::prelude::*;

    /// Stores consumer `h`'s 64 x BN sum `acc` into its block of `partial` (`slot` is
    /// `2 * tile + h`; this program is the tile's `share`-th of `ways`), signals every other
    /// program of the tile, and waits until each has signalled this one.
    pub fn publish<A, const BN: usize>(
        acc: Acc<A, 64, BN>,
        partial: GmemMut<A, P, BN>,
        sems: GmemMut<u32, S>,
        ways: i32,
        slot: i32,
        share: i32,
    ) {
        partial.tile([ways * slot + share, 0], [64, BN]).store(acc.load());
        // Every other program's semaphore: two ranges, a release each, where a release per program
        // cost 0.2 us a program (`bench/results/semaphores/`).
        semaphore_signal(sems, ways * slot..ways * slot + share);
        semaphore_signal(sems, ways * slot + share + 1..ways * slot + ways);
        semaphore_wait(sems, ways * slot + share, ways - 1);
    }

    /// The tile's sum of consumer `h`'s 64 x 32 slice Q: this program's (`acc`) and the `others`
    /// (`ways - 1`) other programs' (in their blocks of `partial`, after `publish`), added in
    /// the tile's program order, skipping this one, `share`. Their slices come by TMA into `part`,
    /// SLOTS buffers per consumer, each completing on its barrier of `loaded`.
    pub fn slice_sum<A, const SLOTS: usize, const Q: usize>(
        acc: Acc<A, 64, _>,
        partial: GmemMut<A, P, _>,
        part: Smem<A, 2, SLOTS, 64, 32, Swizzle128>,
        loaded: Barrier<1, _>,
        ways: i32,
        slot: i32,
        share: i32,
        others: i32,
        h: i32,
    ) -> Regs<A, 64, 32, Layout::Wgmma> {
        let mut sum = acc.slice([.., 32 * Q..32 * Q + 32]).load();
        #[unroll]
        for i in 0..SLOTS {
            if i < others {
                let other = if i < share { i } else { i + 1 };
                let theirs = partial.tile([ways * slot + other, Q], [64, 32]);
                copy_gmem_to_smem(theirs, part.at(h).at(i), loaded.at(SLOTS * h + i));
            }
        }
        for i in 0..others {
            barrier_wait(loaded.at(SLOTS * h + i % SLOTS));
            sum = sum + part.at(h).at(i % SLOTS).load(Layout::Wgmma);
            // Every thread has read the buffer before the next copy rewrites it.
            commit_smem();
            if i + SLOTS < others {
                let next = i + SLOTS;
                let other = if next < share { next } else { next + 1 };
                let theirs = partial.tile([ways * slot + other, Q], [64, 32]);
                copy_gmem_to_smem(theirs, part.at(h).at(i % SLOTS), loaded.at(SLOTS * h + i % SLOTS));
            }
        }
        sum
    }

    /// Consumer `h`'s sum `acc` down the cluster of SPLIT programs, the program of `rank` its
    /// share of K: the sum of the programs above it arrives in its `part` (`received` completes),
    /// is added to its own, and goes on to the program below (whose `part` and `received` it
    /// writes), until program 0 holds the whole sum.
    pub fn pass_down<A, const SPLIT: usize>(
        acc: Acc<A, 64, _>,
        part: Smem<A, _, 64, _>,
        received: Barrier<_>,
        rank: i32,
        h: i32,
    ) {
        if rank + 1 < SPLIT {
            barrier_wait(received);
            acc.store(acc.load() + part.at(h).load(Layout::Wgmma));
        }
        if rank > 0 {
            part.at(h).store(acc.load());
            commit_smem();
            copy_smem_to_peer(part.at(h), part.at(h), received, rank - 1);
        }
    }
}
