//! Memory and synchronisation: views (`tile`, `at`, `slice`, `t`), loads and stores, TMA copies
//! and barriers, for one warpgroup.

use std::rc::Rc;

use super::exec::Warpgroup;
use super::numeric::error;
use super::sync::WaitEnd;
use super::value::{AccRef, Array, BarrierRef, Value};
use crate::{Error, Result};
use tessel_ir::program::{Expr, ExprKind};

/// What a warpgroup returns when its program stopped because another warpgroup failed (or all
/// deadlocked); the program's recorded failure is the error reported.
pub(crate) fn stopped() -> Error {
    error("stopped: another warpgroup of the program failed")
}

/// A blocking wait's end as a result: `Err(stopped())` when the program stopped meanwhile.
fn ended(end: WaitEnd) -> Result<()> {
    match end {
        WaitEnd::Done => Ok(()),
        WaitEnd::Stopped => Err(stopped()),
    }
}

impl Warpgroup<'_> {
    /// Evaluates a memory or barrier expression.
    pub(crate) fn eval_memory(&mut self, e: &Expr) -> Result<Value> {
        Ok(match &e.kind {
            ExprKind::Tile { gmem, index, shape } => {
                let Value::Gmem(param) = self.eval(gmem)? else {
                    return Err(error("internal: `.tile` of something other than a global array"));
                };
                let index = index.iter().map(|i| Ok(self.eval_scalar(i)?.to_i64())).collect::<Result<_>>()?;
                Value::Tile(super::memory::TileRef { param, index, shape: shape.clone() })
            }
            ExprKind::At { base, index } => {
                let base = self.eval(base)?;
                let i = self.eval_scalar(index)?.to_i64();
                self.at(base, i)?
            }
            ExprKind::Slice { base, starts, lens } => match self.eval(base)? {
                Value::Smem(v) => Value::Smem(v.slice(starts, lens)),
                Value::Acc(a) => Value::Acc(AccRef {
                    row0: a.row0 + starts[0],
                    col0: a.col0 + starts[1],
                    rows: lens[0],
                    cols: lens[1],
                    ..a
                }),
                Value::Regs(a) => Value::Regs(Rc::new(a.window(starts, lens))),
                _ => return Err(error("internal: a slice of something other than a buffer, accumulator or array")),
            },
            ExprKind::Transpose { base, swap } => Value::Smem(self.eval(base)?.smem()?.transpose(*swap)),
            ExprKind::Load { src, .. } => Value::Regs(Rc::new(self.load(src)?)),
            ExprKind::Store { dst, value } => {
                let dst = self.eval(dst)?;
                let value = self.eval(value)?.regs()?;
                self.store(dst, &value)?;
                Value::Unit
            }
            ExprKind::CopyIn { src, dst, barrier, multicast, .. } => {
                self.copy_in(src, dst, barrier, *multicast)?;
                Value::Unit
            }
            ExprKind::CopyOut { src, dst, .. } => {
                let view = self.eval(src)?.smem()?;
                let tile = self.eval(dst)?.tile()?;
                tile.copy_from_smem(self.global(tile.param)?, &view, &self.state().smem);
                Value::Unit
            }
            ExprKind::CopyToPeer { src, dst, barrier, rank } => {
                self.copy_to_peer(src, dst, barrier, rank)?;
                Value::Unit
            }
            ExprKind::Arrive { barrier, cluster } => {
                let b = self.eval(barrier)?.barrier()?;
                if *cluster {
                    for program in self.cluster {
                        program.arrive((b.alloc, b.index));
                    }
                } else {
                    self.state().arrive((b.alloc, b.index));
                }
                Value::Unit
            }
            ExprKind::Wait { barrier: bar, .. } => {
                let b = self.eval(bar)?.barrier()?;
                self.wait(b)?;
                Value::Unit
            }
            _ => return Err(error("internal: not a memory expression")),
        })
    }

    /// `.at(i)`: a slab of a buffer or one barrier of an array; an index outside is an error.
    fn at(&self, base: Value, i: i64) -> Result<Value> {
        match base {
            Value::Smem(v) => Ok(Value::Smem(v.at(i, &self.prog.allocs[v.alloc].name)?)),
            Value::Barrier(BarrierRef { alloc, array: Some(count), .. }) => {
                if i < 0 || i as usize >= count {
                    let name = &self.prog.allocs[alloc].name;
                    return Err(error(format!("`{name}.at({i})` is outside its {count} barriers")));
                }
                Ok(Value::Barrier(BarrierRef { alloc, index: i as usize, array: None }))
            }
            _ => Err(error("internal: `.at` of something other than a buffer or a barrier array")),
        }
    }

    fn load(&mut self, src: &Expr) -> Result<Array> {
        Ok(match self.eval(src)? {
            Value::Acc(a) => a.load(),
            Value::Smem(v) => v.read(&self.state().smem),
            Value::Tile(t) => {
                let shape = t.shape.clone().ok_or_else(|| error("internal: a tile load without a shape"))?;
                t.load(self.global(t.param)?, &shape)?
            }
            _ => return Err(error("internal: a load from something that holds no values")),
        })
    }

    fn store(&self, dst: Value, value: &Array) -> Result<()> {
        match dst {
            Value::Acc(a) => a.store(value),
            Value::Smem(v) => v.write(&self.state().smem, value),
            Value::Tile(t) => t.store(self.global(t.param)?, value)?,
            _ => return Err(error("internal: a store into something that holds no values")),
        }
        Ok(())
    }

    /// A TMA load: the tile lands in the buffer (of every program of the cluster, for a multicast),
    /// then counts as one arrival on the issuing program's barrier.
    fn copy_in(&mut self, src: &Expr, dst: &Expr, barrier: &Expr, multicast: bool) -> Result<()> {
        let tile = self.eval(src)?.tile()?;
        let view = self.eval(dst)?.smem()?;
        let bar = self.eval(barrier)?.barrier()?;
        let g = self.global(tile.param)?;
        if multicast {
            for program in self.cluster {
                tile.copy_to_smem(g, &view, &program.smem);
            }
        } else {
            tile.copy_to_smem(g, &view, &self.state().smem);
        }
        self.state().arrive((bar.alloc, bar.index));
        Ok(())
    }

    /// A bulk copy into program `rank` of the cluster: the bytes land in its buffer when issued,
    /// then count as one arrival on its barrier. The peer is in the barrier's scope by then (its
    /// entry is a cluster-wide barrier), so the bytes land in memory that scope owns.
    fn copy_to_peer(&mut self, src: &Expr, dst: &Expr, barrier: &Expr, rank: &Expr) -> Result<()> {
        let from = self.eval(src)?.smem()?;
        let to = self.eval(dst)?.smem()?;
        let bar = self.eval(barrier)?.barrier()?;
        let rank = self.eval_scalar(rank)?.to_i64();
        let Some(peer) = usize::try_from(rank).ok().and_then(|r| self.cluster.get(r)) else {
            let size = self.cluster.len();
            return Err(error(format!("copy_smem_to_peer to rank {rank}, outside the cluster of {size} programs")));
        };
        to.write(&peer.smem, &from.read(&self.state().smem));
        peer.arrive((bar.alloc, bar.index));
        Ok(())
    }

    /// The program-wide barrier of a `run_scoped` (`bar.sync 0`).
    pub(crate) fn sync_program(&mut self) -> Result<()> {
        ended(self.state().sync_program(self.wg, &self.place()))
    }

    /// The cluster-wide barrier of a `run_scoped` that allocates barriers in a cluster
    /// (`barrier.cluster.arrive` / `wait`).
    pub(crate) fn sync_cluster(&mut self) -> Result<()> {
        ended(self.state().sync_cluster(self.wg, &self.place()))
    }

    /// `barrier_wait`: waits for the phase after this warpgroup's previous waits on the barrier.
    fn wait(&mut self, b: BarrierRef) -> Result<()> {
        let key = (b.alloc, b.index);
        let phase = *self.waits.get(&key).unwrap_or(&0);
        ended(self.state().wait(self.wg, key, phase, &self.place()))?;
        self.waits.insert(key, phase + 1);
        Ok(())
    }
}
