//! The operators and named operations of the language, shared by the syntax tree, the checker and
//! the program both back ends read.

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum BinOp {
    Add,
    Sub,
    Mul,
    Div,
    Rem,
    Shl,
    Shr,
    BitAnd,
    BitOr,
    BitXor,
    And,
    Or,
    Eq,
    Ne,
    Lt,
    Le,
    Gt,
    Ge,
}

impl BinOp {
    /// The operation on known integers, as constant folding (`typeck`), a launch's grid
    /// (`GridValue`) and the interpreter's grid evaluate it: `None` on overflow, division by zero,
    /// an out-of-range shift, or an operator that gives no integer. A left shift is a
    /// multiplication by a power of two, checked as one (`checked_shl` only checks the amount).
    pub fn eval_i64(self, a: i64, b: i64) -> Option<i64> {
        match self {
            BinOp::Add => a.checked_add(b),
            BinOp::Sub => a.checked_sub(b),
            BinOp::Mul => a.checked_mul(b),
            BinOp::Div => a.checked_div(b),
            BinOp::Rem => a.checked_rem(b),
            BinOp::Shl => u32::try_from(b).ok().filter(|&b| b < 63).and_then(|b| a.checked_mul(1 << b)),
            BinOp::Shr => u32::try_from(b).ok().and_then(|b| a.checked_shr(b)),
            BinOp::BitAnd => Some(a & b),
            BinOp::BitOr => Some(a | b),
            BinOp::BitXor => Some(a ^ b),
            _ => None,
        }
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum UnOp {
    Neg,
    Not,
}

/// Elementwise math functions: `exp2(x)`, `x.exp2()`, ...
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum MathFn {
    Exp2,
    Exp,
    Log2,
    Log,
    Sqrt,
    Rsqrt,
    Tanh,
    Abs,
    Recip,
    /// Rounding to an integral value: down, up, to nearest (ties to even), toward zero.
    Floor,
    Ceil,
    Round,
    Trunc,
}

/// Binary elementwise functions that are calls rather than operators: `max(x, y)`, `min(x, y)`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum MathFn2 {
    Max,
    Min,
}

/// Reductions along an axis: `x.sum(axis)`, `x.max(axis)`, `x.min(axis)`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ReduceOp {
    Sum,
    Max,
    Min,
}

impl ReduceOp {
    /// The method's name in the language.
    pub fn name(self) -> &'static str {
        match self {
            ReduceOp::Sum => "sum",
            ReduceOp::Max => "max",
            ReduceOp::Min => "min",
        }
    }
}

/// What a semaphore operation does to its global counter.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum SemaphoreOp {
    /// `semaphore_signal`: adds the count.
    Signal,
    /// `semaphore_wait`: waits until the counter holds the count, then takes it.
    Wait,
}

impl SemaphoreOp {
    /// The operation's name in the language.
    pub fn name(self) -> &'static str {
        match self {
            SemaphoreOp::Signal => "semaphore_signal",
            SemaphoreOp::Wait => "semaphore_wait",
        }
    }
}

/// How the threads of a warpgroup leave a `barrier_wait`.
///
/// A parity wait is for one phase, and the barrier cannot tell that phase from the one two phases
/// later: a thread still asleep in its wait when the barrier has completed two more phases waits
/// for a third, which may never come. No thread falls that far behind whose own work completes
/// the next phase, or whose warpgroup synchronizes before that work: a consumer's release of a
/// stage synchronizes the warpgroup. A producer's threads other than the leader do no such work,
/// and on the H200 one of them once slept through two phases of a free stage while the leader's
/// copies ran on, and the kernel hung at its next program-wide barrier. So a producer's wait for a
/// free stage (the pipeline rewrite of the compiler's syntax stage) ends at a warpgroup barrier.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Waiters {
    /// Each thread goes on when it sees the phase: `barrier_wait(bar)`.
    Each,
    /// Every thread waits, then the warpgroup synchronizes: the leader issues nothing for the
    /// stage before every warp has seen it free.
    InStep,
}

impl Waiters {
    /// How the source spells the wait (names with `__` are the pipeline rewrite's own).
    pub fn call_name(self) -> &'static str {
        match self {
            Waiters::Each => "barrier_wait",
            Waiters::InStep => "barrier_wait__in_step",
        }
    }
}

/// How a reducing store combines a value with the element of global memory it lands on:
/// `copy_smem_to_gmem(src, dst, reduce = Reduce::Add)` (`cp.reduce.async.bulk.tensor`) and, for
/// `Add`, `tile.atomic_add(v)` (`red.global.add`). Which dtypes each takes is the legality table
/// `legality::TMA_REDUCE`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum GmemReduce {
    Add,
    Min,
    Max,
    /// `old >= v ? 0 : old + 1` (unsigned; PTX ISA `red`, "Semantics").
    Inc,
    /// `old == 0 || old > v ? v : old - 1` (unsigned).
    Dec,
    And,
    Or,
    Xor,
}

impl GmemReduce {
    pub const ALL: [GmemReduce; 8] = [
        GmemReduce::Add,
        GmemReduce::Min,
        GmemReduce::Max,
        GmemReduce::Inc,
        GmemReduce::Dec,
        GmemReduce::And,
        GmemReduce::Or,
        GmemReduce::Xor,
    ];

    /// The variant's name in the language (`Reduce::Add`).
    pub fn name(self) -> &'static str {
        match self {
            GmemReduce::Add => "Add",
            GmemReduce::Min => "Min",
            GmemReduce::Max => "Max",
            GmemReduce::Inc => "Inc",
            GmemReduce::Dec => "Dec",
            GmemReduce::And => "And",
            GmemReduce::Or => "Or",
            GmemReduce::Xor => "Xor",
        }
    }

    /// The `.redOp` of the PTX instruction.
    pub fn ptx(self) -> &'static str {
        match self {
            GmemReduce::Add => "add",
            GmemReduce::Min => "min",
            GmemReduce::Max => "max",
            GmemReduce::Inc => "inc",
            GmemReduce::Dec => "dec",
            GmemReduce::And => "and",
            GmemReduce::Or => "or",
            GmemReduce::Xor => "xor",
        }
    }

    pub fn from_name(name: &str) -> Option<GmemReduce> {
        GmemReduce::ALL.into_iter().find(|op| op.name() == name)
    }
}
