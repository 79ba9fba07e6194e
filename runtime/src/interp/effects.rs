//! Memory and synchronisation: views (`tile`, `at`, `slice`, `t`), loads and stores, TMA copies
//! and barriers, for one warpgroup.

use std::rc::Rc;

use super::exec::Warpgroup;
use super::numeric::error;
use super::race::{Clocks, What};
use super::sync::{Arrival, WaitEnd};
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
            ExprKind::Load { src, .. } => Value::Regs(Rc::new(self.load(src, e.site)?)),
            ExprKind::Store { dst, value } => {
                let dst = self.eval(dst)?;
                let value = self.eval(value)?.regs()?;
                self.store(dst, &value, e.site)?;
                Value::Unit
            }
            ExprKind::CopyIn { src, dst, barrier, multicast, .. } => {
                self.copy_in(e.site, src, dst, barrier, *multicast)?;
                Value::Unit
            }
            ExprKind::AtomicAdd { dst, value } => {
                let dst = self.eval(dst)?;
                let value = self.eval(value)?.regs()?;
                self.atomic_add(dst, &value, e.site)?;
                Value::Unit
            }
            ExprKind::CopyOut { src, dst, reduce, .. } => {
                self.copy_out(e.site, src, dst, *reduce)?;
                Value::Unit
            }
            ExprKind::CopyToPeer { src, dst, barrier, rank } => {
                self.copy_to_peer(e.site, src, dst, barrier, rank)?;
                Value::Unit
            }
            ExprKind::Arrive { barrier, cluster } => {
                let b = self.eval(barrier)?.barrier()?;
                let clocks = self.release();
                if *cluster {
                    for program in self.cluster {
                        program.arrive((b.alloc, b.index), Arrival::arrive(clocks.clone()));
                    }
                } else {
                    self.state().arrive((b.alloc, b.index), Arrival::arrive(clocks));
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

    /// `x.load(..)`: an accumulator's values once no wgmma writing them is in flight, a shared
    /// view's or a global tile's (elements outside the array read as 0).
    fn load(&mut self, src: &Expr, site: Option<u32>) -> Result<Array> {
        Ok(match self.eval(src)? {
            Value::Acc(a) => {
                self.check_acc(&a, site, false)?;
                a.load()
            }
            Value::Smem(v) => {
                self.record_smem(self.rank, &v, self.me(What::RegLoad, site, false).as_ref())?;
                v.read(&self.state().smem)
            }
            Value::Tile(t) => {
                let shape = t.shape.clone().ok_or_else(|| error("internal: a tile load without a shape"))?;
                self.record_global(&t.boxed(&shape), self.me(What::RegLoad, site, false).as_ref())?;
                t.load(self.global(t.param)?, &shape)?
            }
            _ => return Err(error("internal: a load from something that holds no values")),
        })
    }

    /// `x.store(v)`.
    fn store(&self, dst: Value, value: &Array, site: Option<u32>) -> Result<()> {
        match dst {
            Value::Acc(a) => {
                self.check_acc(&a, site, true)?;
                a.store(value)
            }
            Value::Smem(v) => {
                self.record_smem(self.rank, &v, self.me(What::RegStore, site, true).as_ref())?;
                v.write(&self.state().smem, value)
            }
            Value::Tile(t) => {
                let block = t.shape.clone().unwrap_or_else(|| value.shape.clone());
                self.record_global(&t.boxed(&block), self.me(What::RegStore, site, true).as_ref())?;
                t.store(self.global(t.param)?, value)?
            }
            _ => return Err(error("internal: a store into something that holds no values")),
        }
        Ok(())
    }

    /// What this warpgroup releases (to a barrier), when the detector runs; it steps on, so what
    /// it does next is not released.
    pub(crate) fn release(&mut self) -> Option<Clocks> {
        let r = self.race.as_mut()?;
        let clocks = r.clocks.clone();
        r.tick();
        Some(clocks)
    }

    /// The program-wide barrier of a `run_scoped` (`bar.sync 0`).
    pub(crate) fn sync_program(&mut self) -> Result<()> {
        let place = self.place();
        let end = self.state().sync_program(self.wg, &place, self.race.as_mut().map(|r| &mut r.clocks));
        self.step();
        ended(end)
    }

    /// The cluster-wide barrier of a `run_scoped` that allocates barriers in a cluster
    /// (`barrier.cluster.arrive` / `wait`).
    pub(crate) fn sync_cluster(&mut self) -> Result<()> {
        let place = self.place();
        let end = self.state().sync_cluster(self.wg, &place, self.race.as_mut().map(|r| &mut r.clocks));
        self.step();
        ended(end)
    }

    /// The warpgroup steps on after releasing its clocks or issuing an asynchronous operation:
    /// what it does next is not known to those it released to, nor to the operation.
    pub(crate) fn step(&mut self) {
        if let Some(r) = &mut self.race {
            r.tick();
        }
    }

    /// `barrier_wait`: waits for the phase after this warpgroup's previous waits on the barrier,
    /// and acquires what its completed phases released.
    fn wait(&mut self, b: BarrierRef) -> Result<()> {
        let key = (b.alloc, b.index);
        let phase = *self.waits.get(&key).unwrap_or(&0);
        let place = self.place();
        let state = self.state();
        ended(state.wait(self.wg, (key, phase), &place, self.race.as_mut().map(|r| &mut r.clocks)))?;
        self.waits.insert(key, phase + 1);
        Ok(())
    }
}
