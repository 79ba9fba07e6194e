//! Kernels of several devices (`devices = W`): how many devices, what the entry's parameters may
//! hold, the memory scope of each synchronization, and when a write to global memory is complete,
//! so that a `semaphore_signal` publishes it to another device.
//!
//! Read by the checker (`typeck`, the `sync` stage's publication rule), the PTX writer (scopes and
//! fences) and the interpreter (when a TMA store's writes land for the race detector).

/// The most devices a kernel spans (`devices = W`): the peer addresses and peer tensor maps of the
/// entry grow with `W` (8 and 128 bytes a device), and NVLink domains of one process reach 8 GPUs
/// on an HGX node and 72 on an NVL72 rack.
pub const MAX_DEVICES: u32 = 72;

/// Kernel parameter bytes an entry may take in a module of PTX ISA 8.0 (ptxas 12.9: "Entry function
/// uses too much parameter space (.. 0x1100 max)"); more needs PTX ISA 8.1 ("Kernel parameter size
/// larger than 4352 bytes requires PTX ISA .version 8.1 or later") and a driver of CUDA 12.1 or
/// later.
pub const PARAM_BYTES_PTX_8_0: u64 = 4352;

/// Kernel parameter bytes an entry may take at all (CUDA 12.1 and PTX ISA 8.1: 32764 bytes).
pub const MAX_PARAM_BYTES: u64 = 32_764;

/// The scope of a memory operation's ordering (PTX ISA #memory-consistency-model, scope): the set
/// of threads it synchronizes with.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Scope {
    /// The threads of one GPU: `.gpu`.
    Gpu,
    /// Every thread of the program on every device, and the host: `.sys`.
    Sys,
}

impl Scope {
    /// The PTX qualifier, without its dot.
    pub fn ptx(self) -> &'static str {
        match self {
            Scope::Gpu => "gpu",
            Scope::Sys => "sys",
        }
    }
}

/// The scope of a semaphore operation (and of an atomic add) on a global array: system scope for
/// a `#[peers]` array, whose counters other devices signal (a release and an acquire synchronize
/// only when each one's scope includes the other thread: PTX ISA #memory-consistency-model,
/// morally strong operations), and GPU scope for the others, which only this device reaches.
pub fn sync_scope(peers: bool) -> Scope {
    if peers {
        Scope::Sys
    } else {
        Scope::Gpu
    }
}

/// A write to global memory, as a `semaphore_signal` may publish it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum GlobalWrite {
    /// `tile.store(v)`: `st.global` by each thread.
    RegStore,
    /// `tile.atomic_add(v)`: `red.global.add` by each thread.
    AtomicAdd,
    /// `copy_smem_to_gmem(src, tile)`: `cp.async.bulk.tensor`, by the async proxy.
    TmaStore,
    /// `copy_smem_to_gmem(src, tile, reduce = ..)`: `cp.reduce.async.bulk.tensor`.
    TmaReduce,
}

/// When a write is complete, so that a release after it (the signal's `red.release`) orders it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Completion {
    /// In program order: the thread's own `st`/`red` precede its warpgroup's `bar.sync` and the
    /// leader's release (PTX ISA #memory-consistency-model, release patterns are cumulative).
    InOrder,
    /// At a wait for its bulk group's writes, `wait_smem_to_gmem(n, complete = true)`:
    /// `cp.async.bulk.wait_group n` (without `.read`, which waits only for the reads of shared
    /// memory: PTX ISA #data-movement-and-conversion-instructions-cp-async-bulk-wait-group), then
    /// `fence.proxy.async.global`, so that the async proxy's writes are ordered before the issuing
    /// thread's later generic-proxy operations, the release among them (PTX ISA
    /// #parallel-synchronization-and-communication-instructions-membar, proxy fences).
    WaitComplete,
}

/// One row of the table: a kind of write and when it is complete.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct GlobalWriteRow {
    pub write: GlobalWrite,
    pub completion: Completion,
}

/// When each write to global memory is complete. A `semaphore_signal` on a `#[peers]` counter
/// publishes to another device every write of its warpgroup that is complete there (it releases at
/// system scope); the `sync` stage reports a TMA store into another device's memory that is not.
pub const GLOBAL_WRITES: &[GlobalWriteRow] = &[
    GlobalWriteRow { write: GlobalWrite::RegStore, completion: Completion::InOrder },
    GlobalWriteRow { write: GlobalWrite::AtomicAdd, completion: Completion::InOrder },
    GlobalWriteRow { write: GlobalWrite::TmaStore, completion: Completion::WaitComplete },
    GlobalWriteRow { write: GlobalWrite::TmaReduce, completion: Completion::WaitComplete },
];

/// When `write` is complete (`GLOBAL_WRITES`).
pub fn completion(write: GlobalWrite) -> Completion {
    GLOBAL_WRITES.iter().find(|r| r.write == write).map_or(Completion::WaitComplete, |r| r.completion)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_write_has_one_row() {
        for w in [GlobalWrite::RegStore, GlobalWrite::AtomicAdd, GlobalWrite::TmaStore, GlobalWrite::TmaReduce] {
            assert_eq!(GLOBAL_WRITES.iter().filter(|r| r.write == w).count(), 1, "{w:?}");
        }
        assert_eq!(completion(GlobalWrite::TmaStore), Completion::WaitComplete);
        assert_eq!(completion(GlobalWrite::RegStore), Completion::InOrder);
    }

    #[test]
    fn peers_arrays_synchronize_the_system() {
        assert_eq!(sync_scope(true).ptx(), "sys");
        assert_eq!(sync_scope(false).ptx(), "gpu");
    }
}
