//! The program: a checked kernel with every name resolved to a frame slot, every compile-time
//! quantity folded, every allocation bound by id, and no spans.
//!
//! The compiler's lowering (`tessel_compiler::lower`) builds it from the checked syntax tree and
//! `typeck`'s facts; the macro embeds it, encoded (`codec`), beside the PTX; the interpreter decodes
//! and runs it. Nothing here refers to the source text: the program is `Send + Sync` and the same
//! for every thread that runs it.

use crate::memory::{Alloc, TensorMapUse};
use crate::ops::{BinOp, MathFn, MathFn2, ReduceOp, SemaphoreOp, UnOp};
use crate::types::DType;

/// A checked kernel, shared by every thread of every launch of it.
#[derive(Debug)]
pub struct Program {
    /// The kernel function's name, for messages.
    pub name: String,
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
    /// Shared memory of the allocations per program, in bytes (`Facts::smem_bytes`).
    pub smem_bytes: u64,
    /// The dynamic shared memory a launch provides: allocations, scratch and alignment slack.
    pub dynamic_smem_bytes: u64,
    /// Every allocation, as `typeck` planned it (names, kinds, shared-memory offsets).
    pub allocs: Vec<Alloc>,
    /// Frame slots per warpgroup: parameters first (slot `i` is parameter `i`), then every binding.
    pub slots: usize,
    pub body: Block,
    /// The TMA tensor maps a launch encodes (`Facts::tensor_maps`), whose rules a launch checks.
    pub tensor_maps: Vec<TensorMapUse>,
    /// Whether a program may wait on a semaphore another program signals: then the programs run
    /// as many at once as the GPU would (`schedule.rs`).
    pub waits_on_semaphores: bool,
}

/// A kernel parameter.
#[derive(Debug)]
pub struct ParamInfo {
    pub name: String,
    pub kind: ParamKind,
}

#[derive(Debug)]
pub enum ParamKind {
    Gmem { dtype: DType, shape: Vec<DimSpec>, mutable: bool },
    Scalar(DType),
}

/// One dimension of a global parameter's shape.
#[derive(Clone, Copy, Debug)]
pub enum DimSpec {
    Static(usize),
    /// Index into `Program::runtime_dims`.
    Runtime(usize),
}

/// A literal as written, and the dtype it takes (its suffix's, the other operand's, or the
/// result's): back ends round the written value to the dtype.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Literal {
    pub value: LitValue,
    pub dtype: DType,
}

/// The value of a literal as written: integers exact, floats as `f64` (the nearest to the text).
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum LitValue {
    Int(i64),
    Float(f64),
    Bool(bool),
}

#[derive(Debug, Default)]
pub struct Block {
    pub stmts: Vec<Stmt>,
    pub tail: Option<Box<Expr>>,
}

#[derive(Debug)]
pub enum Stmt {
    /// `let a = e;` or `let (a, b) = e;` (`None`: a `_` pattern).
    Let {
        targets: Vec<Option<usize>>,
        init: Expr,
    },
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

/// How `run_scoped` provides one closure parameter.
#[derive(Debug)]
pub enum Allocation {
    /// A zeroed accumulator, private to the warpgroup.
    Acc { dtype: DType, rows: usize, cols: usize },
    /// A shared-memory buffer of the program: index into `Program::allocs`.
    Smem(usize),
    /// A barrier of the program (index into `Program::allocs`), or an array of them when `array`
    /// (`Barrier<arrivals, count>`, indexed with `.at(i)`).
    Barrier { alloc: usize, array: bool },
}

/// How `broadcast` spreads its source.
#[derive(Clone, Copy, Debug)]
pub enum Spread {
    /// A `Layout::WgmmaRow` vector `[M]`: element `[m, n]` is `v[m]`.
    Rows,
    /// A `Layout::WgmmaCol` vector `[N]`: element `[m, n]` is `v[n]`.
    Cols,
    /// A splat: every element is the single value.
    Splat,
}

#[derive(Debug)]
pub enum Expr {
    Lit(Literal),
    /// A frame slot: a parameter, a `let`, a loop variable or an allocation.
    Local(usize),
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
    ScalarCast {
        value: Box<Expr>,
        dtype: DType,
    },
    ProgramId(usize),
    NumPrograms(usize),
    WarpgroupId,
    ClusterRank,
    /// `g.tile([i, j])` with its explicit block shape, if written.
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
    Load(Box<Expr>),
    Store {
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
    Mma {
        acc: Box<Expr>,
        a: Box<Expr>,
        b: Box<Expr>,
    },
    CopyIn {
        src: Box<Expr>,
        dst: Box<Expr>,
        barrier: Box<Expr>,
        multicast: bool,
    },
    CopyOut {
        src: Box<Expr>,
        dst: Box<Expr>,
    },
    /// `copy_smem_to_peer`: into the same buffer of program `rank` of the cluster.
    CopyToPeer {
        src: Box<Expr>,
        dst: Box<Expr>,
        barrier: Box<Expr>,
        rank: Box<Expr>,
    },
    /// `barrier_arrive`; with `cluster`, on the barrier of every program of the cluster.
    Arrive {
        barrier: Box<Expr>,
        cluster: bool,
    },
    Wait(Box<Expr>),
    /// `semaphore_signal` / `semaphore_wait` on counter `index` of the `u32` array `sems` (each
    /// counter of `index..end` for a signal of a range), by `count` (1 when not written).
    Semaphore {
        op: SemaphoreOp,
        sems: Box<Expr>,
        index: Box<Expr>,
        end: Option<Box<Expr>>,
        count: Option<Box<Expr>>,
    },
    /// `wgmma_wait`, `commit_smem`, `wait_smem_to_gmem`, `set_max_registers`: ordering and
    /// resource hints that a synchronous interpreter has no use for.
    Nop,
    /// `run_scoped`; entering it is a program-wide barrier when it allocates shared memory or
    /// barriers (`sync_entry`), and so is leaving it when it allocates barriers (`sync_exit`); in
    /// a cluster, entering (once its barriers are initialised) and leaving a scope that allocates
    /// barriers is a cluster-wide one too (`sync_cluster`).
    RunScoped {
        allocs: Vec<(usize, Allocation)>,
        body: Block,
        sync_entry: bool,
        sync_exit: bool,
        sync_cluster: bool,
    },
    /// `run_state(Acc::from_regs(init), |slot| body)`.
    RunState {
        init: Box<Expr>,
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
    /// `to_layout` / `layout_cast`: layouts are metadata here, so the value passes unchanged.
    Relayout(Box<Expr>),
}
