//! One warpgroup running the kernel body: statements, scalars, scopes and the dispatch of every
//! expression (memory in `effects.rs`, register arrays in `ops.rs`, matrix products in `matmul.rs`).

use std::collections::{HashMap, VecDeque};
use std::rc::Rc;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::time::{Duration, Instant};

use tessel_ir::memory::AllocKind;
use tessel_ir::ops::BinOp;
use tessel_ir::types::DType;

use super::matmul::PendingWgmma;
use super::memory::{GlobalBuf, SmemView};
use super::numeric::{error, scalar_binop, scalar_unop};
use super::race::{Detector, WgClocks};
use super::sync::{Place, ProgramState};
use super::value::{AccRef, Array, BarrierRef, Scalar, Value};
use crate::Result;
use tessel_ir::program::{Allocation, Block, Expr, ExprKind, Program, Stmt};

/// A launch's arguments and grid, shared by every program.
#[derive(Debug)]
pub(crate) struct Launch {
    /// Every device's parameters, device after device: parameter `p` of device `d` is buffer
    /// `d * n + p` of a kernel of `n` parameters (`Warpgroup::global`).
    pub params: Vec<ParamValue>,
    /// The devices the launch runs on (`devices = W`; 1 for a kernel of one device), each the same
    /// grid over its own arguments.
    pub devices: usize,
    /// Runtime dimensions, in `Program::runtime_dims` order.
    pub dims: Vec<i64>,
    pub grid: [usize; 3],
    /// Set when a cluster fails: no new cluster starts, and semaphore waits give up (the program
    /// they wait for may be the one that failed).
    pub halted: AtomicBool,
    /// Counts work done anywhere in the launch (loop iterations, signals, clusters started), so
    /// that a semaphore wait can tell a slow predecessor from one that will never signal.
    pub progress: AtomicU64,
    /// How long a semaphore wait lets the launch go without progress before it gives up.
    pub wait_limit: Duration,
    /// The race detector, unless it is off.
    pub race: Option<Detector>,
    /// When the launch began: `globaltimer()` counts nanoseconds from here.
    pub start: Instant,
}

impl Launch {
    /// Nanoseconds since the launch began (`globaltimer()`).
    pub(crate) fn timer_ns(&self) -> i64 {
        i64::try_from(self.start.elapsed().as_nanos()).unwrap_or(i64::MAX)
    }

    /// Records that some program of the launch did work.
    pub(crate) fn advance(&self) {
        self.progress.fetch_add(1, Ordering::Relaxed);
    }
}

/// A bound parameter.
#[derive(Debug)]
pub(crate) enum ParamValue {
    Gmem(GlobalBuf),
    Scalar(Scalar),
}

/// The state of one warpgroup of one program.
pub(crate) struct Warpgroup<'a> {
    pub prog: &'static Program,
    pub launch: &'a Launch,
    /// The states of the programs of this cluster (multicast copies write into all of them).
    pub cluster: &'a [ProgramState],
    /// The device the program runs on, its rank in the group (`device_id()`).
    pub device: usize,
    /// This program's index in `cluster` (its `cluster_rank()`).
    pub rank: usize,
    pub program: [usize; 3],
    pub wg: usize,
    frame: Vec<Value>,
    /// Waits so far per barrier (alloc, index): the phase the next wait is for.
    pub waits: HashMap<(usize, usize), u64>,
    /// Entries so far into the `run_scoped` of each barrier allocation.
    entries: HashMap<usize, u64>,
    /// The race detector's clocks of this warpgroup, unless it is off.
    pub race: Option<WgClocks>,
    /// The wgmmas issued and not yet waited for, oldest first: each completes (its product lands
    /// in the accumulator) at the `wgmma_wait` that covers it.
    pub wgmmas: VecDeque<PendingWgmma>,
    /// wgmmas issued so far (the wgmma unit's clock of the latest).
    pub wgmma_issued: u32,
}

impl<'a> Warpgroup<'a> {
    pub(crate) fn new(
        prog: &'static Program,
        launch: &'a Launch,
        (cluster, device): (&'a [ProgramState], usize),
        rank: usize,
        program: [usize; 3],
        wg: usize,
    ) -> Self {
        let mut frame = vec![Value::Unit; prog.slots];
        let n = prog.params.len();
        for (i, p) in launch.params.iter().enumerate().skip(device * n).take(n) {
            frame[i - device * n] = match p {
                ParamValue::Gmem(_) => Value::Gmem(i),
                ParamValue::Scalar(s) => Value::Scalar(*s),
            };
        }
        let race = launch.race.as_ref().map(|d| WgClocks::new(&d.agents, (device, program), wg));
        Warpgroup {
            prog,
            launch,
            cluster,
            device,
            rank,
            program,
            wg,
            frame,
            waits: HashMap::new(),
            entries: HashMap::new(),
            race,
            wgmmas: VecDeque::new(),
            wgmma_issued: 0,
        }
    }

    /// Runs the kernel body.
    pub(crate) fn run(&mut self) -> Result<()> {
        let prog = self.prog;
        self.block(&prog.body).map(drop)
    }

    /// This program's shared state.
    pub(crate) fn state(&self) -> &'a ProgramState {
        &self.cluster[self.rank]
    }

    pub(crate) fn place(&self) -> Place<'a> {
        Place { kernel: &self.prog.name, program: self.program, allocs: &self.prog.allocs }
    }

    /// A global array: buffer `buf` of the launch (a parameter of one device, `Launch::params`).
    pub(crate) fn global(&self, buf: usize) -> Result<&'a GlobalBuf> {
        match self.launch.params.get(buf) {
            Some(ParamValue::Gmem(g)) => Ok(g),
            _ => Err(error(format!("internal: buffer {buf} is not a global array"))),
        }
    }

    /// Buffer `buf` as messages name it: `` `x` ``, and on a group `` `x` of device 1 ``.
    pub(crate) fn array_name(&self, buf: usize) -> String {
        array_name(self.prog, self.launch.devices, buf)
    }

    /// `remote(gmem, rank)`: device `rank`'s copy of the `#[peers]` parameter `gmem` names.
    fn remote(&mut self, gmem: &Expr, rank: &Expr) -> Result<Value> {
        let Value::Gmem(buf) = self.eval(gmem)? else {
            return Err(error("internal: `remote` of something other than a global array"));
        };
        let rank = self.eval_scalar(rank)?.to_i64();
        let n = self.prog.params.len();
        let param = buf % n.max(1);
        match usize::try_from(rank).ok().filter(|&r| r < self.launch.devices) {
            Some(r) => Ok(Value::Gmem(r * n + param)),
            None => Err(error(format!(
                "`remote({}, {rank})`: rank {rank} is outside the group of {} devices",
                self.prog.params[param].name, self.launch.devices
            ))),
        }
    }

    fn block(&mut self, b: &Block) -> Result<Value> {
        for s in &b.stmts {
            self.stmt(s)?;
        }
        match &b.tail {
            Some(t) => self.eval(t),
            None => Ok(Value::Unit),
        }
    }

    fn stmt(&mut self, s: &Stmt) -> Result<()> {
        match s {
            Stmt::Let { targets, init } => {
                let value = self.eval(init)?;
                match (targets.as_slice(), value) {
                    ([target], v) => self.set(target.slot, v),
                    (_, Value::Tuple(parts)) if parts.len() == targets.len() => {
                        for (t, v) in targets.iter().zip(parts) {
                            self.set(t.slot, v);
                        }
                    }
                    _ => return Err(error("internal: a `let` pattern does not match its value")),
                }
            }
            Stmt::Assign { slot, value } => {
                let v = self.eval(value)?;
                self.frame[*slot] = v;
            }
            Stmt::For { slot, start, end, body } => {
                let start = self.eval(start)?.scalar()?.to_i64();
                let end = self.eval(end)?.scalar()?.to_i64();
                for k in start..end {
                    self.launch.advance();
                    self.frame[*slot] = Value::Scalar(Scalar::Int(k, DType::I32));
                    self.block(body)?;
                }
            }
            Stmt::If { cond, then, otherwise } => {
                if self.eval(cond)?.bool()? {
                    self.block(then)?;
                } else if let Some(b) = otherwise {
                    self.block(b)?;
                }
            }
            Stmt::Block(b) => {
                self.block(b)?;
            }
            Stmt::Expr(e) => {
                self.eval(e)?;
            }
        }
        Ok(())
    }

    fn set(&mut self, target: Option<usize>, v: Value) {
        if let Some(slot) = target {
            self.frame[slot] = v;
        }
    }

    pub(crate) fn eval_scalar(&mut self, e: &Expr) -> Result<Scalar> {
        self.eval(e)?.scalar()
    }

    pub(crate) fn eval(&mut self, e: &Expr) -> Result<Value> {
        Ok(match &e.kind {
            ExprKind::Lit(lit) => Value::Scalar(Scalar::literal(*lit)),
            ExprKind::Local(slot) => self.frame[*slot].clone(),
            ExprKind::Dim(i) => Value::Scalar(Scalar::Int(self.launch.dims[*i], DType::I32)),
            ExprKind::Tuple(items) => Value::Tuple(items.iter().map(|i| self.eval(i)).collect::<Result<_>>()?),
            ExprKind::If { cond, then, otherwise } => match self.eval(cond)?.bool()? {
                true => self.block(then)?,
                false => self.block(otherwise)?,
            },
            ExprKind::Unary { op, operand } => match self.eval(operand)? {
                Value::Scalar(s) => Value::Scalar(scalar_unop(*op, s)),
                v => Value::Regs(Rc::new(super::ops::unary(*op, &*v.regs()?))),
            },
            ExprKind::Binary { op, lhs, rhs } => self.binary(*op, lhs, rhs)?,
            ExprKind::ScalarCast { value, dtype } => Value::Scalar(self.eval_scalar(value)?.cast(*dtype)),
            ExprKind::ProgramId(axis) => Value::Scalar(Scalar::Int(self.program[*axis] as i64, DType::I32)),
            ExprKind::NumPrograms(axis) => Value::Scalar(Scalar::Int(self.launch.grid[*axis] as i64, DType::I32)),
            ExprKind::WarpgroupId => Value::Scalar(Scalar::Int(self.wg as i64, DType::I32)),
            ExprKind::ClusterRank => Value::Scalar(Scalar::Int(self.rank as i64, DType::I32)),
            ExprKind::DeviceId => Value::Scalar(Scalar::Int(self.device as i64, DType::I32)),
            ExprKind::GlobalTimer => Value::Scalar(Scalar::Int(self.launch.timer_ns(), DType::I64)),
            ExprKind::Remote { gmem, rank } => self.remote(gmem, rank)?,
            ExprKind::WgmmaWait(n) => self.wgmma_wait(*n)?,
            ExprKind::CommitSmem => {
                if let Some(r) = &mut self.race {
                    r.fence();
                }
                Value::Unit
            }
            ExprKind::WaitSmemToGmem { n, complete } => {
                // TMA stores copy when issued; the wait completes their reads of shared memory for
                // the race detector, and with `complete` their writes of global memory too.
                if let Some(r) = &mut self.race {
                    let done = r.stores_issued.saturating_sub(*n);
                    r.clocks.vc.raise(r.stores, done);
                    if *complete {
                        r.clocks.vc.raise(r.store_writes, done);
                    }
                }
                Value::Unit
            }
            // A resource hint the interpreter has no use for.
            ExprKind::SetMaxRegisters(_) => Value::Unit,
            ExprKind::Const(v) => Value::Scalar(Scalar::Int(*v, DType::I32)),
            ExprKind::RunScoped { allocs, body, sync_entry, sync_exit, sync_cluster, .. } => {
                if *sync_entry {
                    self.sync_program()?;
                }
                for (slot, how) in allocs {
                    self.frame[*slot] = self.allocate(how)?;
                }
                if *sync_cluster {
                    self.sync_cluster()?;
                }
                let value = self.block(body)?;
                if *sync_cluster {
                    self.sync_cluster()?;
                }
                if *sync_exit {
                    self.sync_program()?;
                }
                value
            }
            ExprKind::RunState { init, slot, body, .. } => {
                let init = self.eval(init)?.regs()?;
                self.frame[*slot] = Value::Acc(AccRef::new(Array::clone(&init), None));
                self.block(body)?
            }
            ExprKind::Wgmma { acc, a, b, accumulate } => self.wgmma(e, acc, a, b, accumulate.as_deref())?,
            ExprKind::Semaphore { op, sems, index, end, count } => {
                self.semaphore(*op, sems, (index, end.as_deref()), count.as_deref())?
            }
            ExprKind::Mma { acc, a, b } => self.mma(acc, a, b)?,
            ExprKind::Tile { .. }
            | ExprKind::At { .. }
            | ExprKind::Slice { .. }
            | ExprKind::Transpose { .. }
            | ExprKind::Load { .. }
            | ExprKind::Store { .. }
            | ExprKind::AtomicAdd { .. }
            | ExprKind::CopyIn { .. }
            | ExprKind::CopyOut { .. }
            | ExprKind::CopyToPeer { .. }
            | ExprKind::Arrive { .. }
            | ExprKind::Wait { .. } => self.eval_memory(e)?,
            ExprKind::Splat { .. }
            | ExprKind::Iota { .. }
            | ExprKind::Math { .. }
            | ExprKind::Math2 { .. }
            | ExprKind::Fma(_)
            | ExprKind::Cast { .. }
            | ExprKind::Bitcast { .. }
            | ExprKind::Reduce { .. }
            | ExprKind::Broadcast { .. }
            | ExprKind::ToLayout(_)
            | ExprKind::LayoutCast(_) => self.eval_regs(e)?,
        })
    }

    /// `lhs op rhs`. `&&` and `||` on scalars short-circuit, as in Rust: the right side may be one
    /// that fails when the left decides (`k > 0 && n / k > 1`).
    fn binary(&mut self, op: BinOp, lhs: &Expr, rhs: &Expr) -> Result<Value> {
        let l = self.eval(lhs)?;
        if let (BinOp::And | BinOp::Or, Value::Scalar(Scalar::Bool(b))) = (op, &l) {
            if *b == (op == BinOp::Or) {
                return Ok(l);
            }
        }
        match (l, self.eval(rhs)?) {
            (Value::Scalar(a), Value::Scalar(b)) => Ok(Value::Scalar(scalar_binop(op, a, b)?)),
            (l, r) => super::ops::binary(op, l, r),
        }
    }

    /// One `run_scoped` parameter: a zeroed accumulator, the program's buffer, or its barriers,
    /// initialised for this entry of the scope.
    fn allocate(&mut self, how: &Allocation) -> Result<Value> {
        Ok(match how {
            Allocation::Acc(i) => {
                let AllocKind::Acc { dtype, shape } = &self.prog.allocs[*i].kind else {
                    return Err(error("internal: an accumulator allocation of another kind"));
                };
                let shape = shape.iter().map(|&d| d as usize).collect();
                Value::Acc(AccRef::new(Array::filled(*dtype, shape, 0.0), Some(*i)))
            }
            Allocation::Smem(i) => Value::Smem(SmemView::of_alloc(*i, &self.prog.allocs[*i])?),
            Allocation::Barrier { alloc, array } => {
                let AllocKind::Barrier { arrivals, count } = self.prog.allocs[*alloc].kind else {
                    return Err(error("internal: a barrier allocation of another kind"));
                };
                let epoch = self.entries.entry(*alloc).or_insert(0);
                *epoch += 1;
                let epoch = *epoch;
                self.state().init_barriers(*alloc, count as usize, arrivals, epoch);
                self.waits.retain(|(a, _), _| a != alloc);
                let array = array.then_some(count as usize);
                Value::Barrier(BarrierRef { alloc: *alloc, index: 0, array })
            }
        })
    }
}

/// Buffer `buf` of a launch on `devices` devices as messages name it: `` `x` ``, and on a group
/// `` `x` of device 1 ``.
pub(crate) fn array_name(prog: &Program, devices: usize, buf: usize) -> String {
    let n = prog.params.len().max(1);
    let name = prog.params.get(buf % n).map_or("?", |p| p.name.as_str());
    match devices {
        1 => format!("`{name}`"),
        _ => format!("`{name}` of device {}", buf / n),
    }
}
