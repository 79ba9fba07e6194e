//! The kernel language as a tree: what `syntax` reads from a `#[kernel]` function, with spans.
//!
//! Each variant documents its surface syntax. Nothing here is checked yet: `typeck` decides what is
//! legal. Names are kept as `Ident`s so diagnostics point at the user's tokens.

use crate::diag::Loc;
use crate::types::DType;
pub use crate::types::Layout;
use proc_macro2::Span;
use syn::Ident;
pub use tessel_ir::ops::{BinOp, GmemReduce, MathFn, MathFn2, ReduceOp, SemaphoreOp, UnOp, Waiters};

/// A value together with the span of the tokens it was read from.
#[derive(Clone, Debug)]
pub struct Spanned<T> {
    pub value: T,
    pub span: Span,
}

impl<T> Spanned<T> {
    pub fn new(value: T, span: Span) -> Self {
        Spanned { value, span }
    }
}

/// A whole `#[kernel(..)] fn name(params) { body }`.
#[derive(Clone, Debug)]
pub struct Kernel {
    pub vis: syn::Visibility,
    pub name: Ident,
    pub attr: KernelAttr,
    pub params: Vec<Param>,
    /// The parameters whose `#[when(condition)]` is false here: not parameters of this kernel (or
    /// instance), named so that a use of one says why, and so that the fallback leaves them out too.
    pub left_out: Vec<Ident>,
    pub body: Block,
}

/// `#[kernel(grid = (M / 64, N / 64), warpgroups = 3, warpgroup_axis = wg, cluster = (2, 1),
/// max_registers = 168, devices = 4, consts(BK = 64), ragged(M))]`.
#[derive(Clone, Debug)]
pub struct KernelAttr {
    /// `grid = (e0, e1, e2)`: one to three scalar expressions over runtime dimensions and consts.
    pub grid: Vec<Expr>,
    pub grid_span: Span,
    /// `warpgroups = n` (default 1): threads per program are `128 * n`.
    pub warpgroups: Spanned<u32>,
    /// `warpgroup_axis = wg`: the name `collective_axes` uses for "all warpgroups of the program".
    pub warpgroup_axis: Option<Ident>,
    /// `cluster = (x, y, z)` (default 1 x 1 x 1).
    pub cluster: Spanned<[u32; 3]>,
    /// `max_registers = n`: the per-thread register cap at entry (`.maxnreg`), which
    /// `set_max_registers` needs.
    pub max_registers: Option<Spanned<u32>>,
    /// `consts(NAME = value, ..)`: compile-time integer constants visible in the body.
    pub consts: Vec<ConstDef>,
    /// `ragged(M, N)`: runtime dimensions whose last tile may overhang the array (TMA fills zeros
    /// and clips stores there), so the launch does not check that tiles divide them.
    pub ragged: Vec<Ident>,
    /// `devices = W`: the kernel runs on a group of `W` devices at once (a literal; a const
    /// parameter of a generic kernel is one by the time the instance is read).
    pub devices: Option<Spanned<u32>>,
}

impl KernelAttr {
    /// Programs per cluster, saturating (an attribute may say anything until it is checked).
    pub fn cluster_size(&self) -> u32 {
        self.cluster.value.iter().fold(1u32, |n, d| n.saturating_mul(*d))
    }
}

/// `NAME = 64` in `consts(..)`, or `const NAME: usize = 64;` in the body.
#[derive(Clone, Debug)]
pub struct ConstDef {
    pub name: Ident,
    pub value: Expr,
}

/// A kernel parameter: `a: Gmem<bf16, M, K>`, `c: GmemMut<f32, M, N>` or `scale: f32`; `#[peers]
/// buf: GmemMut<bf16, M, K>` for a symmetric array (one copy per device of the group).
#[derive(Clone, Debug)]
pub struct Param {
    pub name: Ident,
    pub ty: ParamTy,
    /// The `#[peers]` attribute, where written.
    pub peers: Option<Loc>,
}

#[derive(Clone, Debug)]
pub enum ParamTy {
    /// `Gmem<T, d0, d1, ..>` (read-only) or `GmemMut<T, d0, d1, ..>`.
    Gmem { dtype: Spanned<DType>, shape: Vec<Dim>, mutable: bool, span: Span },
    /// A scalar passed by value: `alpha: f32`, `n: i32`.
    Scalar(Spanned<DType>),
}

/// One dimension of a global shape: a literal or const (static) or an upper-case runtime dimension.
#[derive(Clone, Debug)]
pub enum Dim {
    Lit(Spanned<i64>),
    /// A name: a const of the kernel if one is declared, else a runtime dimension bound at launch.
    Name(Ident),
}

/// The type annotations of the language (closure parameters of `run_scoped`, `let x: T`).
// AST nodes are built once per kernel; boxing variants would only add noise.
#[allow(clippy::large_enum_variant)]
#[derive(Clone, Debug)]
pub enum TypeExpr {
    /// `Acc<f32, 64, 128>`: a WGMMA accumulator, allocated zeroed in registers.
    Acc { dtype: Spanned<DType>, shape: ShapeExpr, span: Span },
    /// `Smem<bf16, STAGES, 64, 64, Swizzle128, Transposed>`: a shared-memory buffer and its transforms.
    Smem { dtype: Spanned<DType>, shape: ShapeExpr, transforms: Vec<Transform>, span: Span },
    /// `Barrier` or `Barrier<2>` (an mbarrier expecting that many arrivals per phase), or `Barrier<1, 4>`
    /// for an array of 4 such barriers.
    Barrier { arrivals: Option<Expr>, count: Option<Expr>, span: Span },
    /// `Regs<f32, 64, 64, Layout::Wgmma>`: a register array.
    Regs { dtype: Spanned<DType>, shape: ShapeExpr, layout: Spanned<Layout>, span: Span },
    /// A scalar dtype: `i32`, `f32`, ...
    Scalar(Spanned<DType>),
}

impl TypeExpr {
    pub fn span(&self) -> Span {
        match self {
            TypeExpr::Acc { span, .. }
            | TypeExpr::Smem { span, .. }
            | TypeExpr::Barrier { span, .. }
            | TypeExpr::Regs { span, .. } => *span,
            TypeExpr::Scalar(d) => d.span,
        }
    }
}

/// `[64, BK]`: a static shape; each entry is a compile-time expression.
#[derive(Clone, Debug)]
pub struct ShapeExpr {
    pub dims: Vec<Expr>,
    pub span: Span,
}

impl ShapeExpr {
    /// From the first dimension to the last: where a diagnostic about the whole shape points.
    pub fn loc(&self) -> Loc {
        match (self.dims.first(), self.dims.last()) {
            (Some(first), Some(last)) => Loc::new(first.span, last.end),
            _ => self.span.into(),
        }
    }
}

/// A shared-memory transform, in the order written.
#[derive(Clone, Debug)]
pub enum Transform {
    /// `Swizzle32`, `Swizzle64`, `Swizzle128`, `NoSwizzle`, or `Swizzle<bytes>`.
    Swizzle(Spanned<u32>),
    /// `Tiled<8, 64>`: the buffer is stored as tiles of this shape (trailing dimensions).
    Tiled(ShapeExpr),
    /// `Transposed`: the last two dimensions are stored swapped (an MN-major operand).
    Transposed(Span),
}

/// `{ stmt; stmt; tail }`
#[derive(Clone, Debug)]
pub struct Block {
    pub stmts: Vec<Stmt>,
    /// The value of the block: a final expression without a semicolon.
    pub tail: Option<Box<Expr>>,
    pub span: Span,
}

#[derive(Clone, Debug)]
pub enum Stmt {
    /// `let x = e;`, `let mut x: T = e;`, `let (i, j) = (e0, e1);`
    Let { names: Vec<(Ident, bool)>, ty: Option<TypeExpr>, init: Expr, span: Span },
    /// `const BK: usize = 64;`
    Const(ConstDef),
    /// `x = e;` (`x` declared `let mut`), also `x += e;` desugared to `x = x + e`.
    Assign { name: Ident, value: Expr, span: Span },
    /// `for k in start..end { .. }` over scalars (`i32`).
    For { var: Ident, start: Expr, end: Expr, body: Block, span: Span },
    /// `if cond { .. } else { .. }` on a scalar condition.
    If { cond: Expr, then: Block, otherwise: Option<Block>, span: Span },
    /// A scope of its own: one copy of an `#[unroll]` loop's body.
    Block(Block),
    /// An expression evaluated for its effect: `wgmma(acc, a_s, b_s);`
    Expr(Expr),
}

/// Identifies an expression of one kernel: `typeck` records the type of each by its id.
pub type ExprId = u32;

/// An expression and its span.
#[derive(Clone, Debug)]
pub struct Expr {
    pub id: ExprId,
    pub kind: ExprKind,
    /// The span of the expression's first token.
    pub span: Span,
    /// The span of its last token: a diagnostic about the whole expression underlines `span..end`.
    pub end: Span,
}

impl Expr {
    /// Whether this is an integer or float literal without a suffix (or its negation), which takes
    /// the other operand's type.
    pub fn is_untyped_literal(&self) -> bool {
        match &self.kind {
            ExprKind::Int(_, None) | ExprKind::Float(_, None) => true,
            ExprKind::Unary { op: UnOp::Neg, operand } => operand.is_untyped_literal(),
            _ => false,
        }
    }
}

impl From<&Expr> for Loc {
    fn from(e: &Expr) -> Loc {
        Loc::new(e.span, e.end)
    }
}

/// `collective_axes = [wg]` in `run_scoped`.
#[derive(Clone, Debug)]
pub struct CollectiveAxes {
    pub axes: Vec<Ident>,
    /// From `collective_axes` to `]`.
    pub loc: Loc,
}

/// One entry of `r.slice([.., 0..32, s])`.
#[allow(clippy::large_enum_variant)]
#[derive(Clone, Debug)]
pub enum SliceArg {
    /// `..`: the whole dimension.
    Full(Span),
    /// `start..end` with compile-time length `end - start`.
    Range { start: Expr, end: Expr, span: Span },
}

#[derive(Clone, Debug)]
pub enum ExprKind {
    /// Something `syntax` already reported as unsupported; checking skips it silently.
    Invalid,
    /// `64`, `64i32`, `1.5`, `0.0f32`, `true`
    Int(i64, Option<DType>),
    Float(f64, Option<DType>),
    Bool(bool),
    /// A local, a parameter or a const.
    Var(Ident),
    /// `(a, b)`
    Tuple(Vec<Expr>),
    /// `if cond { a } else { b }` as a value: each branch's block ends in its value (`else if`
    /// nests as a block whose value is the inner `if`).
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
        dtype: Spanned<DType>,
    },

    /// `program_id(axis)`
    ProgramId(Spanned<u32>),
    /// `num_programs(axis)`
    NumPrograms(Spanned<u32>),
    /// `warpgroup_id()`: the index of this warpgroup in the program, along `warpgroup_axis`.
    WarpgroupId,
    /// `cluster_rank()`: this program's rank in its cluster.
    ClusterRank,
    /// `device_id()`: this device's rank in the group of `devices = W`.
    DeviceId,
    /// `device_count()`: the `W` of `devices = W`, a constant.
    DeviceCount,
    /// `globaltimer()`: the GPU's nanosecond clock, an `i64`.
    GlobalTimer,
    /// `remote(buf, rank)`: device `rank`'s copy of the `#[peers]` parameter `buf`, a view usable
    /// wherever `buf` is.
    Remote {
        gmem: Box<Expr>,
        rank: Box<Expr>,
    },

    /// `a.tile([i, k])`: the block of a global array at block index `[i, k]`; the block shape is the
    /// shape of the other side of the copy or store it is used in. `a.tile([i, k], [64, 16])` gives the
    /// block shape explicitly (register loads need it).
    Tile {
        gmem: Box<Expr>,
        index: Vec<Expr>,
        shape: Option<ShapeExpr>,
    },
    /// `r.at(s)`: the `s`-th slab of a shared buffer along its first dimension (pipeline stages).
    At {
        base: Box<Expr>,
        index: Box<Expr>,
    },
    /// `r.slice([.., 0..32])`: a static window of a shared buffer or accumulator.
    Slice {
        base: Box<Expr>,
        args: Vec<SliceArg>,
    },
    /// `r.t()` (swap the last two dimensions) or `r.transpose([perm..])`: a transposed view.
    Transpose {
        base: Box<Expr>,
        perm: Option<Spanned<Vec<usize>>>,
    },

    /// `acc.load()`, `a_s.load(Layout::MmaLhs)`, `x.tile([i, j]).load(Layout::Strided)`
    Load {
        src: Box<Expr>,
        layout: Option<Spanned<Layout>>,
    },
    /// `acc.store(v)`, `c_s.store(v)`, `c.tile([i, j]).store(v)`
    Store {
        dst: Box<Expr>,
        value: Box<Expr>,
    },
    /// `c.tile([i, j]).atomic_add(v)`: each element of `v` added atomically to the tile's.
    AtomicAdd {
        dst: Box<Expr>,
        value: Box<Expr>,
    },
    /// `Acc::from_regs(r)`: an accumulator initialised from a register array (only in `run_state`).
    AccFromRegs(Box<Expr>),
    /// `splat::<f32>(0.0, [64, 64])`
    Splat {
        dtype: Option<Spanned<DType>>,
        value: Box<Expr>,
        shape: ShapeExpr,
    },
    /// `iota::<i32>([64, 64], axis)`: each element holds its index along `axis` (for masks).
    Iota {
        dtype: Option<Spanned<DType>>,
        shape: ShapeExpr,
        axis: Spanned<u32>,
    },

    /// `wgmma(acc, a, b)`: `acc += a @ b` on the tensor cores; `a` in shared memory or registers.
    /// With `accumulate = c` as a fourth argument, `acc = a @ b` where the bool `c` is false.
    Wgmma {
        acc: Box<Expr>,
        a: Box<Expr>,
        b: Box<Expr>,
        accumulate: Option<Box<Expr>>,
    },
    /// `wgmma_wait(n)`: wait until at most `n` wgmma groups are in flight.
    WgmmaWait(Spanned<u32>),
    /// `mma(acc, a, b)`: warp-level `mma.sync` on register arrays; returns the new accumulator.
    Mma {
        acc: Box<Expr>,
        a: Box<Expr>,
        b: Box<Expr>,
    },

    /// `copy_gmem_to_smem(src, dst, bar)` or with `multicast = true` as a fourth argument (TMA).
    CopyGmemToSmem {
        src: Box<Expr>,
        dst: Box<Expr>,
        barrier: Box<Expr>,
        multicast: Option<Loc>,
    },
    /// `copy_smem_to_gmem(src, dst)` (TMA store, asynchronous; see `wait_smem_to_gmem`), or
    /// `copy_smem_to_gmem(src, dst, reduce = Reduce::Add)`: the buffer combined into the tile.
    CopySmemToGmem {
        src: Box<Expr>,
        dst: Box<Expr>,
        reduce: Option<Spanned<GmemReduce>>,
    },
    /// `copy_smem_to_peer(src, dst, bar, rank)`: a bulk copy of this program's buffer into the same
    /// place (`dst`) of program `rank` of the cluster, completing on that program's `bar`.
    CopySmemToPeer {
        src: Box<Expr>,
        dst: Box<Expr>,
        barrier: Box<Expr>,
        rank: Box<Expr>,
    },
    /// `commit_smem()`: make this warpgroup's ordinary shared-memory writes visible to TMA and wgmma.
    CommitSmem,
    /// `wait_smem_to_gmem(n)`: wait until at most `n` TMA stores are still reading shared memory;
    /// `wait_smem_to_gmem(n, complete = true)`: until at most `n` are still writing global memory
    /// (the flag's place, where written and true).
    WaitSmemToGmem {
        n: Spanned<u32>,
        complete: Option<Loc>,
    },
    /// `barrier_arrive(bar)`, or with `cluster = true` as a second argument: one arrival on the
    /// barrier at the same place in every program of the cluster.
    BarrierArrive {
        barrier: Box<Expr>,
        cluster: Option<Loc>,
    },
    /// `barrier_wait(bar)`, or a pipeline producer's wait for a free stage.
    BarrierWait(Box<Expr>, Waiters),
    /// `semaphore_signal(sems, i)` / `semaphore_wait(sems, i)`, each with an optional count `n`
    /// (default 1) as a third argument: semaphore `i` of the `GmemMut<u32, N>` parameter `sems`
    /// receives `n` after the warpgroup's earlier global stores, or is waited for until it holds `n`,
    /// which the wait takes. A signal may name a range, `semaphore_signal(sems, i..end)`:
    /// each semaphore of it receives `n`, all after one release.
    Semaphore {
        op: SemaphoreOp,
        sems: Box<Expr>,
        index: Box<Expr>,
        /// The end of the range `index..end`, when the signal names one.
        end: Option<Box<Expr>>,
        count: Option<Box<Expr>>,
    },
    /// `set_max_registers(n)`: `setmaxnreg` for this warpgroup.
    SetMaxRegisters(Spanned<u32>),

    /// `run_scoped(|a: T, ..| body)` or `run_scoped(collective_axes = [wg], |..| body)`.
    RunScoped {
        collective_axes: Option<CollectiveAxes>,
        params: Vec<(Ident, TypeExpr)>,
        body: Block,
    },
    /// `run_state(init, |acc| body)`: an accumulator initialised from registers for `body`.
    RunState {
        init: Box<Expr>,
        param: Ident,
        body: Block,
    },

    /// `exp2(x)` or `x.exp2()`
    Math {
        func: MathFn,
        arg: Box<Expr>,
    },
    /// `max(x, y)`
    Math2 {
        func: MathFn2,
        lhs: Box<Expr>,
        rhs: Box<Expr>,
    },
    /// `fma(a, b, c)`: `a * b + c` with one rounding
    Fma {
        a: Box<Expr>,
        b: Box<Expr>,
        c: Box<Expr>,
    },
    /// `x.cast::<bf16>()`
    Cast {
        value: Box<Expr>,
        dtype: Spanned<DType>,
    },
    /// `x.bitcast::<u32>()`: the same bits read as another dtype of their width.
    Bitcast {
        value: Box<Expr>,
        dtype: Spanned<DType>,
    },
    /// `x.sum(1)`, `x.max(0)`, `x.min(1)`
    Reduce {
        value: Box<Expr>,
        op: ReduceOp,
        axis: Spanned<u32>,
    },
    /// `row.broadcast([64, 128], Layout::Wgmma)`
    Broadcast {
        value: Box<Expr>,
        shape: ShapeExpr,
        layout: Spanned<Layout>,
    },
    /// `x.to_layout(Layout::Wgmma)`: a data-moving relayout.
    ToLayout {
        value: Box<Expr>,
        layout: Spanned<Layout>,
    },
    /// `x.layout_cast(Layout::Strided)`: reinterpret without moving data (shapes must allow it).
    LayoutCast {
        value: Box<Expr>,
        layout: Spanned<Layout>,
    },
}
