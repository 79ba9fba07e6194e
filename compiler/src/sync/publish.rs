//! S8, the publication rule: a `semaphore_signal` on a `#[peers]` counter publishes to another
//! device the writes its warpgroup made before it, and so each write to another device's memory
//! must be complete there (`legality::GLOBAL_WRITES`).
//!
//! The signal is a system-scope release (`red.release.sys`, after the warpgroup's `bar.sync`), which
//! orders the warpgroup's register stores and atomic adds before it: they are complete in program
//! order. A TMA store is not: its bulk group writes global memory asynchronously, and
//! `wait_smem_to_gmem(n)` (`cp.async.bulk.wait_group.read n`) waits only for it to have read shared
//! memory. Its writes are complete at `wait_smem_to_gmem(n, complete = true)` (`cp.async.bulk.
//! wait_group n`, then `fence.proxy.async.global`, which orders the async proxy's writes before
//! the leader's release). A TMA store into a `remote(..)` tile still writing at a signal on a
//! `#[peers]` counter is reported: the peer may see the count before the data.
//!
//! Which signal publishes which write is not written in the kernel: the first signal on a
//! `#[peers]` counter after a write is taken to publish it (a write issued after a signal and
//! published by the next one is written so). A store reported at a signal is not reported again
//! at the next. A signal on another counter (GPU scope, which only this device's programs wait
//! on) publishes nothing to another device, and is left alone.

use super::state;
use super::walk::Walker;
use crate::diag::Diag;
use tessel_ir::legality::{completion, Completion, GlobalWrite};
use tessel_ir::program::Expr;
use tessel_ir::ty::Ty;

impl Walker<'_> {
    /// A TMA store (reducing or not) issued at `site` into the tile `dst`: its writes are in flight
    /// until a wait completes them.
    pub(super) fn tma_write(&mut self, site: usize, dst: &Expr, reduce: bool) {
        let write = if reduce { GlobalWrite::TmaReduce } else { GlobalWrite::TmaStore };
        if completion(write) != Completion::WaitComplete {
            return;
        }
        let peer = match &dst.ty {
            Ty::Tile(g, _) if g.remote => Some(g.name.clone()),
            _ => None,
        };
        state::issue(&mut self.state.writes, site, peer);
    }

    /// `semaphore_signal` on `sems`: on a `#[peers]` counter, every TMA store into another device's
    /// memory must have completed its writes.
    pub(super) fn publish(&mut self, signal: &Expr, sems: &Expr) {
        if !matches!(&sems.ty, Ty::Gmem(g) if g.peers) {
            return;
        }
        let pending: Vec<(String, u32)> =
            self.state.writes.iter().filter_map(|g| g.what.clone().map(|place| (place, g.younger.0))).collect();
        for (place, wait) in pending {
            self.report(signal, Diag::PeerStoreNotComplete { place, wait });
        }
        self.state.writes.retain(|g| g.what.is_none());
    }
}
