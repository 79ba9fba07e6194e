//! TMA copies for one warpgroup: loads that land when their barrier's phase completes, stores, and
//! copies into a peer's shared memory; each records its reads and writes for the race detector
//! as an asynchronous operation of its issuer.

use super::access::Op;
use super::exec::Warpgroup;
use super::memory::{GlobalBox, SmemView};
use super::numeric::error;
use super::race::{Unit, What};
use super::sync::{Arrival, Landing};
use super::value::BarrierRef;
use crate::Result;
use tessel_ir::ops::GmemReduce;
use tessel_ir::program::Expr;

impl Warpgroup<'_> {
    /// The asynchronous operation `what` of this warpgroup's copies unit for barrier `bar` of the
    /// cluster's program `rank` (`None` when the detector is off).
    fn copy_op(&mut self, bar: BarrierRef, rank: usize, site: Option<u32>, what: What) -> Option<Op> {
        let agents = &self.launch.race.as_ref()?.agents;
        let unit = Unit::Copies { slot: agents.slot(bar.alloc, bar.index), rank: rank as u32 };
        let agent = agents.id((self.device, self.program), self.wg, unit);
        let r = self.race.as_mut()?;
        let clock = r.next_copy(agent);
        Some(Op { agent, clock, clocks: r.clocks.clone(), site, what })
    }

    /// `copy_gmem_to_smem(tile, dst, bar)`: reads the tile now and counts as one arrival on the
    /// issuing program's barrier; the bytes land in `dst` when that phase completes. With
    /// `multicast = true`, as in the PTX, each program of the cluster loads its share of the rows
    /// (of the second-to-last stored dimension) into the buffer of every program, and each
    /// program's phase completes once every program's share has landed in it: every program of
    /// the cluster issues the same copy, each waiting on its own barrier.
    pub(crate) fn copy_in(
        &mut self,
        site: Option<u32>,
        src: &Expr,
        dst: &Expr,
        barrier: &Expr,
        multicast: bool,
    ) -> Result<()> {
        let tile = self.eval(src)?.tile()?;
        let view = self.eval(dst)?.smem()?;
        let bar = self.eval(barrier)?.barrier()?;
        let area = tile.boxed(&view.shape);
        let (view, area) = match multicast {
            true => self.multicast_share(view, area),
            false => (view, area),
        };
        let op = self.copy_op(bar, self.rank, site, What::TmaLoad);
        self.record_global(&area, op.as_ref().map(|o| o.actor(false)).as_ref())?;
        let into: Vec<usize> = if multicast { (0..self.cluster.len()).collect() } else { vec![self.rank] };
        for &rank in &into {
            self.record_smem(rank, &view, op.as_ref().map(|o| o.actor(true)).as_ref())?;
        }
        let values = area.read(self.global(tile.param)?);
        let completion = op.as_ref().map(Op::completion);
        let key = (bar.alloc, bar.index);
        let landing = || -> Landing {
            let (view, values) = (view.clone(), values.clone());
            Box::new(move |smem| view.write_stored(smem, &values))
        };
        if multicast {
            self.state().arrive(key, Arrival::expect(self.cluster.len() as u32));
            for program in self.cluster {
                program.arrive(key, Arrival::delivery(completion.clone(), landing()));
            }
        } else {
            self.state().arrive(key, Arrival::copy(completion, landing()));
        }
        self.step();
        Ok(())
    }

    /// This program's share of a multicast copy: its rows of the second-to-last stored dimension
    /// (`multicast_share` in the PTX writer's `tma.rs`).
    fn multicast_share(&self, view: SmemView, area: GlobalBox) -> (SmemView, GlobalBox) {
        let dim = view.shape.len().saturating_sub(2);
        let rows = view.shape[dim] / self.cluster.len();
        (view.rows(dim, self.rank * rows, rows), area.rows(dim, self.rank * rows, rows))
    }

    /// `copy_smem_to_gmem(src, tile)`: writes the tile now, dropping elements outside the array.
    /// For the race detector it reads `src` and writes the tile at some point before the
    /// `wait_smem_to_gmem` that covers it. With `reduce`, it combines each element into the
    /// tile's instead, an atomic access of the tile for the detector (other programs' reductions
    /// into it are no race).
    pub(crate) fn copy_out(
        &mut self,
        site: Option<u32>,
        src: &Expr,
        dst: &Expr,
        reduce: Option<GmemReduce>,
    ) -> Result<()> {
        let view = self.eval(src)?.smem()?;
        let tile = self.eval(dst)?.tile()?;
        let op = self.race.as_mut().map(|r| {
            r.stores_issued += 1;
            Op { agent: r.stores, clock: r.stores_issued, clocks: r.clocks.clone(), site, what: What::TmaStore }
        });
        self.record_smem(self.rank, &view, op.as_ref().map(|o| o.actor(false)).as_ref())?;
        // The writes of global memory are the stores' other unit's, complete at a
        // `wait_smem_to_gmem(n, complete = true)` (`legality::GLOBAL_WRITES`).
        let writes =
            |what| op.as_ref().zip(self.race.as_ref()).map(|(o, r)| Op { agent: r.store_writes, what, ..o.clone() });
        let global = self.global(tile.param)?;
        match reduce {
            None => {
                let actor = writes(What::TmaStore);
                self.record_global(&tile.boxed(&view.shape), actor.as_ref().map(|o| o.actor(true)).as_ref())?;
                tile.copy_from_smem(global, &view, &self.state().smem);
            }
            Some(red) => {
                let actor = writes(What::TmaReduce);
                self.record_global(&tile.boxed(&view.shape), actor.as_ref().map(|o| o.actor(false)).as_ref())?;
                tile.reduce_from_smem(global, &view, &self.state().smem, red);
            }
        }
        self.step();
        Ok(())
    }

    /// `copy_smem_to_peer(src, dst, bar, rank)`: reads `src` now and counts as one arrival on
    /// program `rank`'s barrier; the bytes land in that program's `dst` when the phase completes.
    /// The peer is in the barrier's scope by then (its entry is a cluster-wide barrier), so the
    /// bytes land in memory that scope owns.
    pub(crate) fn copy_to_peer(
        &mut self,
        site: Option<u32>,
        src: &Expr,
        dst: &Expr,
        barrier: &Expr,
        rank: &Expr,
    ) -> Result<()> {
        let from = self.eval(src)?.smem()?;
        let to = self.eval(dst)?.smem()?;
        let bar = self.eval(barrier)?.barrier()?;
        let rank = self.eval_scalar(rank)?.to_i64();
        let Some(peer) = usize::try_from(rank).ok().filter(|&r| r < self.cluster.len()) else {
            let size = self.cluster.len();
            return Err(error(format!("copy_smem_to_peer to rank {rank}, outside the cluster of {size} programs")));
        };
        let op = self.copy_op(bar, peer, site, What::PeerCopy);
        self.record_smem(self.rank, &from, op.as_ref().map(|o| o.actor(false)).as_ref())?;
        self.record_smem(peer, &to, op.as_ref().map(|o| o.actor(true)).as_ref())?;
        let values = from.read(&self.state().smem);
        let landing: Landing = Box::new(move |smem| to.write(smem, &values));
        self.cluster[peer].arrive((bar.alloc, bar.index), Arrival::copy(op.as_ref().map(Op::completion), landing));
        self.step();
        Ok(())
    }
}
