//! The program: a checked kernel with every name resolved to a frame slot, every compile-time
//! quantity folded, every allocation bound by id, the type of every expression, and no spans.
//!
//! The compiler's lowering (`tessel_compiler::lower`) builds it from the checked syntax tree and
//! `typeck`'s facts; the PTX writer reads it; the macro embeds it, encoded ([`codec`](crate::codec)),
//! beside the PTX, and the interpreter decodes and runs it. It is a one-to-one image of the checked
//! kernel: each node is the language construct of the same name (the syntax tree documents the
//! surface syntax of each), so both back ends run the program the user wrote.
//!
//! Frame slots: parameter `i` is slot `i`; every other binding (`let`, loop variable, `run_scoped`
//! and `run_state` parameter) gets a slot of its own, numbered in program order, so a slot names
//! one binding wherever it is used.

use crate::memory::{Alloc, TensorMapUse};
use crate::ops::{BinOp, GmemReduce, MathFn, MathFn2, ReduceOp, SemaphoreOp, UnOp, Waiters};
use crate::ty::{AccTy, Ty};
use crate::types::{DType, Layout};

/// A checked kernel, shared by every thread of every launch of it.
#[derive(Clone, Debug, PartialEq)]
pub struct Program {
    /// The kernel function's name: the PTX entry's, and the one messages use.
    pub name: String,
    /// The parameters in declaration order, the first part of the kernel ABI (`Program::abi`).
    pub params: Vec<ParamInfo>,
    /// Runtime dimensions, in the order they first appear in the parameters (the ABI's order).
    pub runtime_dims: Vec<String>,
    /// (index into `runtime_dims`, tile extent, why): dimensions tiles must cover exactly.
    pub divisibility: Vec<(usize, usize, String)>,
    /// Indices into `runtime_dims` of the `ragged(..)` dimensions.
    pub ragged: Vec<usize>,
    /// The grid, one to three scalar expressions over parameters, runtime dimensions and consts.
    pub grid: Vec<Expr>,
    /// Each grid expression as the launch's messages quote it (`M / 64`).
    pub grid_text: Vec<String>,
    pub warpgroups: usize,
    pub cluster: [usize; 3],
    /// `max_registers = n`: the per-thread register cap at entry.
    pub max_registers: Option<u32>,
    /// Shared memory of the allocations per program, in bytes.
    pub smem_bytes: u64,
    /// Scratch each warpgroup needs for layout conversions and column reductions.
    pub scratch_bytes: u32,
    /// The dynamic shared memory a launch provides: allocations, scratch and alignment slack.
    pub dynamic_smem_bytes: u64,
    /// Every allocation, as `typeck` planned it (names, kinds, shared-memory offsets).
    pub allocs: Vec<Alloc>,
    /// Frame slots per warpgroup: parameters first (slot `i` is parameter `i`), then every binding.
    pub slots: usize,
    pub body: Block,
    /// The TMA tensor maps a launch encodes, whose rules a launch checks.
    pub tensor_maps: Vec<TensorMapUse>,
    /// Whether a program may wait on a semaphore another program signals: then the interpreter
    /// runs the programs as many at once as the GPU would.
    pub waits_on_semaphores: bool,
    /// `devices = W`: the kernel runs on a group of `W` devices at once, one grid per device,
    /// each program knowing its device's rank (`device_id()`) and reaching the other devices'
    /// copies of its `#[peers]` parameters (`remote(..)`); `None` for a kernel of one device.
    pub devices: Option<u32>,
    /// The source files the kernel's operations are written in ([`SourceLoc::file`]).
    pub files: Vec<String>,
    /// Where each memory and synchronization operation is written ([`Expr::site`]), so that the
    /// interpreter's messages (a data race names both accesses) point at the kernel's source.
    pub sites: Vec<SourceLoc>,
}

/// Where an operation is written in the kernel's source: its first token's line and column, both
/// counted from 1 as rustc prints them (0 where the compiler that expanded the kernel could not
/// tell: a Rust older than 1.88).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct SourceLoc {
    /// Index into `Program::files`.
    pub file: u32,
    pub line: u32,
    pub column: u32,
}

/// One argument of the kernel's entry point, in the kernel ABI's order: what the PTX entry
/// declares and what a launch passes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum AbiParam {
    /// Parameter `i`: a global array's address, or a scalar by value.
    Param(usize),
    /// Runtime dimension `i`, as an `s32`.
    Dim(usize),
    /// Tensor map `i`, by value (128 bytes, 64-aligned); a peers map (`TensorMapUse::peers`) is
    /// one map per device of the group, `128 * W` bytes, the map over rank `r`'s copy at `128 * r`.
    TensorMap(usize),
    /// A kernel of several devices (`Program::devices`): this device's rank in the group, a `u32`.
    DeviceRank,
    /// The `#[peers]` parameter `i`: the global address of every rank's copy, `W` `u64`s in rank
    /// order.
    Peers(usize),
}

impl Program {
    /// The entry's parameters in ABI order: the kernel's parameters, then its runtime dimensions,
    /// then its tensor maps, then, for a kernel of several devices, the device's rank and the
    /// peer addresses of each `#[peers]` parameter. Written once, here: the PTX writer declares
    /// them in this order, and the launch wrapper passes them in it.
    pub fn abi(&self) -> impl Iterator<Item = AbiParam> + '_ {
        let params = (0..self.params.len()).map(AbiParam::Param);
        let dims = (0..self.runtime_dims.len()).map(AbiParam::Dim);
        let maps = (0..self.tensor_maps.len()).map(AbiParam::TensorMap);
        let rank = self.devices.map(|_| AbiParam::DeviceRank);
        let peers = self.params.iter().enumerate().filter(|(_, p)| p.is_peers()).map(|(i, _)| AbiParam::Peers(i));
        params.chain(dims).chain(maps).chain(rank).chain(peers)
    }

    /// The bytes of the entry's parameters, each at its alignment in ABI order, as ptxas counts
    /// them against the parameter space (`legality::MAX_PARAM_BYTES`).
    pub fn param_bytes(&self) -> u64 {
        let w = self.device_count() as u64;
        let size_align = |p: AbiParam| -> (u64, u64) {
            match p {
                AbiParam::Param(i) => match self.params.get(i).map(|p| &p.kind) {
                    Some(ParamKind::Scalar(d)) if d.bits() == 64 => (8, 8),
                    Some(ParamKind::Scalar(_)) => (4, 4),
                    _ => (8, 8),
                },
                AbiParam::Dim(_) | AbiParam::DeviceRank => (4, 4),
                AbiParam::TensorMap(i) => match self.tensor_maps.get(i).is_some_and(|m| m.peers) {
                    true => (128 * w, 64),
                    false => (128, 64),
                },
                AbiParam::Peers(_) => (8 * w, 8),
            }
        };
        self.abi().fold(0, |end, p| {
            let (size, align) = size_align(p);
            end.div_ceil(align) * align + size
        })
    }

    /// The devices a launch runs on: `W` of `devices = W`, else 1.
    pub fn device_count(&self) -> usize {
        self.devices.map_or(1, |w| w as usize)
    }

    /// Programs per cluster.
    pub fn cluster_size(&self) -> usize {
        self.cluster.iter().product()
    }

    /// Site `site` as `file:line:column`, or `None` for an index the table lacks.
    pub fn site_text(&self, site: u32) -> Option<String> {
        let loc = self.sites.get(site as usize)?;
        let file = self.files.get(loc.file as usize).map_or("<unknown file>", String::as_str);
        Some(format!("{file}:{}:{}", loc.line, loc.column))
    }
}

/// A kernel parameter.
#[derive(Clone, Debug, PartialEq)]
pub struct ParamInfo {
    pub name: String,
    pub kind: ParamKind,
}

impl ParamInfo {
    /// Whether the parameter is declared `#[peers]`: a symmetric array, one copy per device of
    /// the group, every copy reachable from every device.
    pub fn is_peers(&self) -> bool {
        matches!(self.kind, ParamKind::Gmem { peers: true, .. })
    }
}

#[derive(Clone, Debug, PartialEq)]
pub enum ParamKind {
    /// A global array; `peers` for a `#[peers]` one.
    Gmem {
        dtype: DType,
        shape: Vec<DimSpec>,
        mutable: bool,
        peers: bool,
    },
    Scalar(DType),
}

/// One dimension of a global parameter's shape.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum DimSpec {
    Static(usize),
    /// Index into `Program::runtime_dims`.
    Runtime(usize),
}

#[derive(Clone, Debug, Default, PartialEq)]
pub struct Block {
    pub stmts: Vec<Stmt>,
    pub tail: Option<Box<Expr>>,
}

/// A name a `let` binds: its slot (`None` for `_`) and whether it is `mut`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Target {
    pub slot: Option<usize>,
    pub mutable: bool,
}

#[derive(Clone, Debug, PartialEq)]
pub enum Stmt {
    /// `let a = e;` or `let (a, mut b) = e;`
    Let {
        targets: Vec<Target>,
        init: Expr,
    },
    /// `x = e;` (and `x += e;`, written as `x = x + e`).
    Assign {
        slot: usize,
        value: Expr,
    },
    For {
        slot: usize,
        start: Expr,
        end: Expr,
        body: Block,
    },
    If {
        cond: Expr,
        then: Block,
        otherwise: Option<Block>,
    },
    /// A scope of its own (one copy of an `#[unroll]` loop's body).
    Block(Block),
    Expr(Expr),
}

/// How `run_scoped` provides one closure parameter: an entry of `Program::allocs`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Allocation {
    /// A zeroed accumulator, private to the warpgroup.
    Acc(usize),
    /// A shared-memory buffer of the program.
    Smem(usize),
    /// A barrier of the program, or an array of them when `array` (`Barrier<arrivals, count>`,
    /// indexed with `.at(i)`).
    Barrier { alloc: usize, array: bool },
}

impl Allocation {
    /// The entry of `Program::allocs`.
    pub fn alloc(self) -> usize {
        match self {
            Allocation::Acc(a) | Allocation::Smem(a) | Allocation::Barrier { alloc: a, .. } => a,
        }
    }
}

/// How `broadcast` spreads its source.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Spread {
    /// A `Layout::WgmmaRow` vector `[M]`: element `[m, n]` is `v[m]`.
    Rows,
    /// A `Layout::WgmmaCol` vector `[N]`: element `[m, n]` is `v[n]`.
    Cols,
    /// A splat: every element is the single value.
    Splat,
}

/// A literal as written, and the dtype its value takes.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Literal {
    pub value: LitValue,
    /// The suffix, when written (`2u32`, `0.5f32`): a literal without one is untyped.
    pub suffix: Option<DType>,
    /// The dtype the value takes: the suffix's; for an untyped literal beside an operand of
    /// another dtype (`k + 1` of a `u32` `k`, `x * 0.5` of a bf16 `x`) that operand's, as
    /// `typeck` gives it; else the literal's own type. Back ends round the written value to it
    /// once.
    pub dtype: DType,
}

/// The value of a literal as written: integers exact, floats as the `f64` nearest to the text.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum LitValue {
    Int(i64),
    Float(f64),
    Bool(bool),
}

/// An expression and the type `typeck` gave it.
#[derive(Clone, Debug, PartialEq)]
pub struct Expr {
    pub ty: Ty,
    pub kind: ExprKind,
    /// Where a memory or synchronization operation is written (an index into `Program::sites`);
    /// `None` for every other expression.
    pub site: Option<u32>,
}

#[derive(Clone, Debug, PartialEq)]
pub enum ExprKind {
    Lit(Literal),
    /// A frame slot: a parameter, a `let`, a loop variable or an allocation.
    Local(usize),
    /// A const of the kernel (`consts(BN = 128)`, `const BK: usize = 64;`), folded.
    Const(i64),
    /// A runtime dimension, by index into `Program::runtime_dims`.
    Dim(usize),
    Tuple(Vec<Expr>),
    /// `if cond { .. } else { .. }` as a value.
    If {
        cond: Box<Expr>,
        then: Block,
        otherwise: Block,
    },
    Unary {
        op: UnOp,
        operand: Box<Expr>,
    },
    Binary {
        op: BinOp,
        lhs: Box<Expr>,
        rhs: Box<Expr>,
    },
    /// `x as u32` on scalars.
    ScalarCast {
        value: Box<Expr>,
        dtype: DType,
    },
    ProgramId(usize),
    NumPrograms(usize),
    WarpgroupId,
    ClusterRank,
    /// `device_id()`: this device's rank in the group, an `i32` in `0..W`.
    DeviceId,
    /// `globaltimer()`: the GPU's global nanosecond timer (`%globaltimer`), an `i64`.
    GlobalTimer,
    /// `remote(param, rank)`: device `rank`'s copy of the `#[peers]` parameter `param` (a
    /// `Local`), typed as the parameter with `GmemTy::remote`.
    Remote {
        gmem: Box<Expr>,
        rank: Box<Expr>,
    },
    /// `g.tile([i, j])`, with its block shape when written or implied (`Ty::Tile`).
    Tile {
        gmem: Box<Expr>,
        index: Vec<Expr>,
        shape: Option<Vec<usize>>,
    },
    At {
        base: Box<Expr>,
        index: Box<Expr>,
    },
    /// A static window, in the view's (logical) dimension order.
    Slice {
        base: Box<Expr>,
        starts: Vec<usize>,
        lens: Vec<usize>,
    },
    /// A transposed view; `swap` is false for an identity permutation.
    Transpose {
        base: Box<Expr>,
        swap: bool,
    },
    /// `x.load()`, or `x.load(layout)`.
    Load {
        src: Box<Expr>,
        layout: Option<Layout>,
    },
    Store {
        dst: Box<Expr>,
        value: Box<Expr>,
    },
    /// `tile.atomic_add(value)`: each element of the register array added to the global tile's
    /// element, atomically (`red.global.add`); elements outside the array are dropped.
    AtomicAdd {
        dst: Box<Expr>,
        value: Box<Expr>,
    },
    Splat {
        value: Box<Expr>,
        dtype: DType,
        shape: Vec<usize>,
    },
    Iota {
        dtype: DType,
        shape: Vec<usize>,
        axis: usize,
    },
    Wgmma {
        acc: Box<Expr>,
        a: Box<Expr>,
        b: Box<Expr>,
        /// `accumulate = c`: where `c` is false the product replaces the accumulator.
        accumulate: Option<Box<Expr>>,
    },
    /// `wgmma_wait(n)`.
    WgmmaWait(u32),
    Mma {
        acc: Box<Expr>,
        a: Box<Expr>,
        b: Box<Expr>,
    },
    /// `copy_gmem_to_smem` through tensor map `map` (an index into `Program::tensor_maps`).
    CopyIn {
        src: Box<Expr>,
        dst: Box<Expr>,
        barrier: Box<Expr>,
        multicast: bool,
        map: usize,
    },
    /// `copy_smem_to_gmem` through tensor map `map`; with `reduce = Reduce::Op`, the buffer's
    /// elements combine with the tile's (`cp.reduce.async.bulk.tensor`) instead of replacing them.
    CopyOut {
        src: Box<Expr>,
        dst: Box<Expr>,
        map: usize,
        reduce: Option<GmemReduce>,
    },
    /// `copy_smem_to_peer`: into the same buffer of program `rank` of the cluster.
    CopyToPeer {
        src: Box<Expr>,
        dst: Box<Expr>,
        barrier: Box<Expr>,
        rank: Box<Expr>,
    },
    /// `commit_smem()`.
    CommitSmem,
    /// `wait_smem_to_gmem(n)`: all but the `n` most recent TMA stores have read their shared
    /// memory; with `complete` (`wait_smem_to_gmem(n, complete = true)`), their writes to global
    /// memory are complete and ordered before the warpgroup's later operations too.
    WaitSmemToGmem {
        n: u32,
        complete: bool,
    },
    /// `barrier_arrive`; with `cluster`, on the barrier of every program of the cluster.
    Arrive {
        barrier: Box<Expr>,
        cluster: bool,
    },
    Wait {
        barrier: Box<Expr>,
        waiters: Waiters,
    },
    /// `semaphore_signal` / `semaphore_wait` on counter `index` of the `u32` array `sems` (each
    /// counter of `index..end` for a signal of a range), by `count` (1 when not written).
    Semaphore {
        op: SemaphoreOp,
        sems: Box<Expr>,
        index: Box<Expr>,
        end: Option<Box<Expr>>,
        count: Option<Box<Expr>>,
    },
    /// `set_max_registers(n)`.
    SetMaxRegisters(u32),
    /// `run_scoped`: each closure parameter's slot and allocation. Entering it is a program-wide
    /// barrier when it allocates shared memory or barriers (`sync_entry`), and so is leaving it
    /// when it allocates barriers (`sync_exit`); in a cluster, entering (once its barriers are
    /// initialised) and leaving a scope that allocates barriers is a cluster-wide one too
    /// (`sync_cluster`).
    RunScoped {
        allocs: Vec<(usize, Allocation)>,
        body: Block,
        collective: bool,
        sync_entry: bool,
        sync_exit: bool,
        sync_cluster: bool,
    },
    /// `run_state(Acc::from_regs(init), |slot| body)`: `acc` is the accumulator's type.
    RunState {
        init: Box<Expr>,
        acc: AccTy,
        slot: usize,
        body: Block,
    },
    Math {
        func: MathFn,
        arg: Box<Expr>,
    },
    Math2 {
        func: MathFn2,
        lhs: Box<Expr>,
        rhs: Box<Expr>,
    },
    /// `fma(a, b, c)`
    Fma(Box<[Expr; 3]>),
    Cast {
        value: Box<Expr>,
        dtype: DType,
    },
    Bitcast {
        value: Box<Expr>,
        dtype: DType,
    },
    /// `x.sum(axis)`, `x.max(axis)`, `x.min(axis)`: a register array without `axis`, or, from a
    /// 1-D array, a scalar (the expression's type says which).
    Reduce {
        value: Box<Expr>,
        op: ReduceOp,
        axis: usize,
    },
    Broadcast {
        value: Box<Expr>,
        shape: Vec<usize>,
        spread: Spread,
    },
    /// `x.to_layout(..)`: a data-moving relayout.
    ToLayout(Box<Expr>),
    /// `x.layout_cast(..)`: the same data under another layout.
    LayoutCast(Box<Expr>),
}
