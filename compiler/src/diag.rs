//! Diagnostics: what can be wrong with a kernel (`Diag`), how it reads (`Diag::message`, `Diag::help`),
//! and the context that collects every problem of a kernel before any is reported (`Ctxt`).
//!
//! Messages mirror JAX Pallas's Mosaic GPU backend word for word for the rows of the error catalog
//! (listed, each with its compile-fail case, in `compiler-tests/tests/ui/README.md`); the row id is given on each
//! variant.
//! Help lines give a fix that is correct for PTX. Every diagnostic has a stable code (`Diag::code`,
//! from the table in `codes`), which `Ctxt::into_errors` puts in front of its message.

pub use crate::codes::Code;
use crate::syntax::ast::{Layout, ReduceOp};
use crate::types::DType;
use proc_macro2::{Delimiter, Ident, Span, TokenStream, TokenTree};
use std::cell::RefCell;
use std::ops::Range;

/// A shape as the user writes it: `[64, 128]`.
pub fn shape_str(shape: &[i64]) -> String {
    let dims: Vec<String> = shape.iter().map(i64::to_string).collect();
    format!("[{}]", dims.join(", "))
}

/// Every diagnostic tessel can give. The variant decides the text; the span is given separately.
#[derive(Clone, Debug, PartialEq)]
pub enum Diag {
    // ---- A. accumulator allocation -------------------------------------------------------------
    /// SEED 000
    AccUnsigned { dtype: DType },
    /// SEED 002 (`shared`: the same `run_scoped` allocates shared memory or barriers, which
    /// must stay collective in a kernel of several warpgroups)
    AccCollective { shared: bool },
    /// A3 (`wg`: the kernel's warpgroup axis, if it declares one; `must_share`: the `run_scoped`
    /// allocates shared memory or barriers in a kernel of several warpgroups, so that leaving
    /// `collective_axes` out is A4)
    CollectiveNotWarpgroup { wg: Option<String>, must_share: bool },
    /// A4 (`declared`: whether the kernel declares `warpgroup_axis = wg`)
    SmemNotCollective { wg: String, declared: bool },
    /// A5
    AccDtype { dtype: DType },
    /// A6
    AccShape { m: i64, n: i64 },
    /// A7
    AccFromUnsigned,
    /// A8
    PreinitOutsideRunState,
    /// A9
    SmemExceeded { bytes: u64, max: u64 },

    // ---- B. accumulator loads and stores ---------------------------------------------------------
    /// SEED 003
    AccStoreDtype { acc: DType, value: DType },
    /// B2
    AccStoreShape { acc: Vec<i64>, value: Vec<i64> },
    /// B3
    AccStoreSliced,
    /// B4
    NotAnAcc { what: String },

    // ---- C. register layouts ---------------------------------------------------------------------
    /// SEED 004
    AccFromLayout { layout: Layout },
    /// C2
    CannotConvert { from: Layout, to: Layout },
    /// C2, from `layout_cast`: the registers do not line up (`to_layout` may still convert)
    CannotReinterpret { from: Layout, to: Layout },
    /// C3
    IncompatibleLayouts { lhs: Layout, rhs: Layout },
    /// C4
    IncompatibleShapes { lhs: Vec<i64>, rhs: Vec<i64> },
    /// C5
    BroadcastLayout { from: Layout, to: Layout },
    /// C6 (first form)
    ShapeNot2d { shape: Vec<i64> },
    /// C6 (second form)
    ShapeNotWgmmaTile { shape: Vec<i64> },
    /// C7
    LoopCarryLayout { index: usize, out: Layout, carry: Layout },

    // ---- D. warp-level mma -----------------------------------------------------------------------
    /// SEED 001
    MmaIntAccNot32 { acc: DType },
    /// D2
    MmaIntAccUnsigned { acc: DType },
    /// D3
    MmaFloatAcc { acc: DType },
    /// D4
    MmaOperandType { dtype: DType },
    /// D5
    MmaDtypeMismatch { a: DType, b: DType },
    /// D6
    MmaDimMismatch { dim: char, x: i64, y: i64 },
    /// D7
    MmaWarps { m_warps: i64 },
    /// D8
    MmaLayout { operand: MmaOperand },

    // ---- E. wgmma operands -----------------------------------------------------------------------
    /// E1
    WgmmaOutDtype { dtype: DType },
    /// E2 / E3 / E4
    WgmmaAccForElement { element: DType, allowed: &'static [DType], acc: DType },
    /// E5
    WgmmaMixedDtypes { a: DType, b: DType },
    /// E6
    WgmmaK { k_a: i64, k_b: i64 },
    /// E7
    WgmmaAccShape { m: i64, n: i64, shape: Vec<i64> },
    /// E8 (M)
    WgmmaM { m: i64 },
    /// E8 (N)
    WgmmaN { n: i64 },
    /// E8 (N, integer list; Pallas misses this one)
    WgmmaIntN { n: i64 },
    /// E8 (K)
    WgmmaKStep { k_step: i64, k: i64 },
    /// E9
    WgmmaTranspose { dtype: DType },
    /// E10
    WgmmaBInRegisters { what: String },
    /// E11 (dtype)
    WgmmaRegADtype { dtype: DType },
    /// E11 (layout)
    WgmmaRegALayout { layout: Layout },
    /// E12
    WgmmaUnsigned { side: &'static str, dtype: DType },
    /// E13
    WgmmaSwizzleMismatch { a: u32, b: u32 },
    /// E14 (first form)
    NoSwizzle,
    /// E14 (second form)
    BadSwizzle { swizzle: u32 },
    /// E15
    SwizzleTrailingDim { swizzle: u32, n: i64, shape: Vec<i64> },
    /// E16 (first form)
    TransposeSwizzled,
    /// E16 (second form): `width` elements per swizzled row.
    SliceSwizzled { width: i64 },
    /// E17
    MatmulShapes { a: Vec<i64>, b: Vec<i64>, acc: Vec<i64> },

    // ---- S. synchronization (the `sync` stage: read off the program, after checking) --------------
    /// S1: a shared buffer read while a TMA load into it may not have landed.
    LoadNotWaited { place: String, barrier: String, reader: &'static str },
    /// S2: a barrier whose phases get more or fewer arrivals than it is declared with.
    BarrierArrivals { barrier: String, declared: String, expected: u32, arrivals: u32 },
    /// S3: a shared buffer overwritten while a wgmma that reads it may be in flight.
    OverwrittenUnderWgmma { place: String, writer: &'static str, wait: u32 },
    /// S4: an accumulator read or stored while a wgmma that writes it may be in flight.
    AccUnderWgmma { acc: String, store: bool, wait: u32 },
    /// S5: a TMA store, peer copy or wgmma of a buffer with register stores not yet committed.
    NotCommitted { place: String, reader: &'static str },
    /// S6: a shared buffer overwritten while a TMA store that reads it may be in flight.
    OverwrittenUnderTmaStore { place: String, writer: &'static str, wait: u32 },
    /// S7: a shared buffer written by one warpgroup and read by another with no barrier between.
    UnorderedWarpgroups { place: String, writer: usize, write: &'static str, reader: usize },
    /// S8: a TMA store into another device's memory whose writes may not be complete at a
    /// `semaphore_signal` that publishes them (`wait`: the `n` of a `wait_smem_to_gmem(n, complete
    /// = true)` that completes it).
    PeerStoreNotComplete { place: String, wait: u32 },

    // ---- tessel's own rules ----------------------------------------------------------------------
    /// `v.max(x)` with an axis that is no integer literal: `.max(axis)` reduces, and `max(x, y)`
    /// is the elementwise maximum (a ReLU written the Rust way, `(v + b).max(0.0)`, lands here).
    ReduceAxisNotLiteral { op: ReduceOp },
    /// A reduction of an array that tessel does not reduce in its layout.
    Reduction { layout: Layout, shape: Vec<i64> },
    /// `v.broadcast([M, N], Layout::Wgmma)` of a row or column vector whose length is not the
    /// target's extent along the vector's axis.
    BroadcastVectorLength { from: Layout, len: i64, target: Vec<i64> },
    /// `dst.store(x)` of something other than a register array (`what`, its type).
    StoreNotRegs { what: String, source: StoreSource },
    /// `r.transpose([..])` whose list is not a permutation of the view's dimensions.
    NotAPermutation { perm: Vec<usize>, rank: usize },
    /// Syntax the language does not have; `code` is the rule (`codes::Code`).
    Unsupported { code: Code, what: String },
    /// A type, arity or kind error that the catalog does not name; `code` is the rule it breaks.
    Type { code: Code, message: String, help: String },
    /// At a call of a kernel function: the errors reported in its body come from this call, or
    /// (`broken`) the function has errors of its own, so the call is not compiled.
    InCall { function: String, broken: bool },
}

/// What a store was given instead of a register array, for its help line.
#[derive(Clone, Debug, PartialEq)]
pub enum StoreSource {
    /// An accumulator, by name when the value is one: it holds registers, read with `.load()`.
    Acc { name: Option<String> },
    /// A shared-memory buffer stored into a global tile: a TMA store copies it.
    SmemToGmem,
    /// A shared-memory buffer or a global tile elsewhere: loading it gives registers.
    Memory,
    /// Anything else.
    Other,
}

/// Which `mma` operand is in the wrong layout (D8).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum MmaOperand {
    A,
    B,
    Acc,
}

impl Diag {
    /// The first line of the error: the catalog's text with the user's spellings filled in.
    pub fn message(&self) -> String {
        use Diag::*;
        match self {
            AccUnsigned { dtype } => {
                format!("Invalid WGMMA accumulator dtype for s8/i8 WGMMA. Expected signed integer, but got {dtype}.")
            }
            AccCollective { .. } => "WGMMA accumulators can only be allocated non-collectively. Hint: remove \
                collective_axes from run_scoped. If other allocations are performed as well, split the \
                run_scoped into two."
                .into(),
            CollectiveNotWarpgroup { .. } => "Only thread-collective allocations are supported in run_scoped.".into(),
            SmemNotCollective { wg, .. } => format!(
                "Only thread-collective allocations are supported in multithreaded kernels. Hint: add \
                 collective_axes=[{wg}] to your run_scoped if you intend all threads to share the same \
                 allocation (currently collective_axes=[])."
            ),
            AccDtype { dtype } => format!("Acc ref dtype must be float32 or int32, got {dtype}"),
            AccShape { m, n } => {
                format!("WGMMA requires m and n to be multiples of 64 and 8, got {m} and {n}")
            }
            AccFromUnsigned => "PTX does not support unsigned WGMMA accumulators".into(),
            PreinitOutsideRunState => "Preinitialized accumulator (Acc::from_regs) only supported in run_state.".into(),
            SmemExceeded { bytes, max } => {
                format!("kernel exceeds available shared memory: smem_bytes={bytes} > max_smem_bytes={max}")
            }
            AccStoreDtype { acc, value } => {
                format!("Accumulator dtype {acc} does not match value dtype {value}")
            }
            AccStoreShape { acc, value } => {
                format!("Accumulator shape {} does not match value shape {}", shape_str(acc), shape_str(value))
            }
            AccStoreSliced => "Non-trivial indexing on WGMMAAbstractAccumulatorRef is not supported for stores.".into(),
            NotAnAcc { what } => format!("acc must be a WGMMAAccumulatorAbstractRef, got {what}"),
            AccFromLayout { .. } => "Only WGMMA layouts supported in WGMMAAccumulator".into(),
            CannotConvert { from, to } | CannotReinterpret { from, to } => {
                format!("Cannot convert from {from} to {to}")
            }
            IncompatibleLayouts { .. } => "Incompatible FragmentedArray layouts".into(),
            IncompatibleShapes { .. } => "Incompatible FragmentedArray shapes".into(),
            BroadcastLayout { .. } => "Source and destination layouts aren't compatible for a broadcast".into(),
            ShapeNot2d { shape } => format!("Shape {} is not 2D", shape_str(shape)),
            ShapeNotWgmmaTile { shape } => {
                format!("Shape {} is not a multiple of 64x8", shape_str(shape))
            }
            LoopCarryLayout { index, out, carry } => format!(
                "The loop body output has unexpected layout: output[{index}] has layout {out}, when it \
                 should be {carry}."
            ),
            MmaIntAccNot32 { .. } => "Only s32 accumulator supported for integer operands.".into(),
            MmaIntAccUnsigned { .. } => "Only signed accumulator supported for integer operands.".into(),
            MmaFloatAcc { .. } => "Only f32 accumulator supported for floating operands.".into(),
            MmaOperandType { dtype } => format!("Unsupported operand type: {dtype}"),
            MmaDtypeMismatch { a, b } => format!("Dtype mismatch: {a} != {b}"),
            MmaDimMismatch { dim, x, y } => format!("{dim} mismatch: {x} != {y}"),
            MmaWarps { m_warps } => {
                format!("m_warps must be 1, 2, or 4, but got m_warps={m_warps}")
            }
            MmaLayout { operand } => match operand {
                MmaOperand::A => "Expected MMALayouts.lhs layout for A".into(),
                MmaOperand::B => "Expected MMALayouts.rhs layout for B".into(),
                MmaOperand::Acc => "Expected MMALayouts.acc for acc".into(),
            },
            WgmmaOutDtype { dtype } => {
                format!("WGMMA instruction only supports f32, f16 and s32 out (got {dtype})")
            }
            WgmmaAccForElement { element, allowed, acc } => format!(
                "WGMMA with element type {element} only supports accumulators of type {}, but got: {acc}",
                allowed_list(allowed)
            ),
            WgmmaMixedDtypes { a, b } => format!(
                "WGMMA requires A and B to have the same element type (or be a mix of the e4m3/e5m2 FP8 \
                 types), got: {a} and {b}"
            ),
            WgmmaK { k_a, k_b } => {
                format!("WGMMA requires A and B to have the same contraction dimension (K), got: {k_a} and {k_b}")
            }
            WgmmaAccShape { m, n, shape } => {
                format!("Accumulator shape mismatch: expected ({m}, {n}), got {}", shape_str(shape))
            }
            WgmmaM { m } => format!("M must be a multiple of 64, got: {m}"),
            WgmmaN { n } => format!("N must be a multiple of 8 and <= 256, got: {n}"),
            WgmmaIntN { n } => format!(
                "N must be one of 8, 16, 24, 32, 48, 64, ..., 256 (multiples of 16 above 32) for integer \
                 WGMMA, got: {n}"
            ),
            WgmmaKStep { k_step, k } => format!("K must be a multiple of {k_step}, got: {k}"),
            WgmmaTranspose { .. } => "Only f16 WGMMA supports transposes".into(),
            WgmmaBInRegisters { what } => format!("B must be a shared-memory ref, got: {what}"),
            WgmmaRegADtype { dtype } => {
                format!("Only f16, bf16, i8, f8e5m2, f8e4m3 are supported for A in registers, got {dtype}")
            }
            WgmmaRegALayout { .. } => "Unsupported A register array layout".into(),
            WgmmaUnsigned { side, dtype } => format!("WGMMA with {side} of type {dtype}"),
            WgmmaSwizzleMismatch { .. } => "WGMMA rhs swizzle must match lhs swizzle".into(),
            NoSwizzle => "No swizzle is not supported".into(),
            BadSwizzle { swizzle } => format!("Swizzle {swizzle} is not supported. Only 32, 64 and 128 are accepted."),
            SwizzleTrailingDim { swizzle, n, shape } => format!(
                "Swizzle {swizzle} requires the trailing dimension to be of size {n}, but got shape: {}",
                shape_str(shape)
            ),
            TransposeSwizzled => "Can't transpose the swizzled dimension.".into(),
            SliceSwizzled { .. } => "Swizzled dims cannot be sliced".into(),
            MatmulShapes { a, b, acc } => format!(
                "Incompatible shapes for matrix multiplication: lhs={}, rhs={}, acc={}",
                shape_str(a),
                shape_str(b),
                shape_str(acc)
            ),
            ReduceAxisNotLiteral { op } => format!(
                "`.{}(axis)` {} along an axis, written as an integer literal{}",
                op.name(),
                reduce_verb(*op),
                match op {
                    ReduceOp::Sum => String::new(),
                    _ => format!("; the elementwise {} of two values is `{}(x, y)`", reduce_noun(*op), op.name()),
                }
            ),
            Reduction { layout, shape } => format!(
                "tessel reduces 2-D arrays in Layout::Wgmma (along either axis) and 1-D arrays (to a scalar), \
                 got {layout} of shape {}",
                shape_str(shape)
            ),
            BroadcastVectorLength { from, len, target } => {
                let (axis, extent) = vector_axis(*from, target);
                format!(
                    "a {from} vector of length {len} gives one value per {axis} of the array it broadcasts into, \
                     but {} has {extent} {axis}s",
                    shape_str(target)
                )
            }
            StoreNotRegs { what, .. } => format!("stores take a register array, got {what}"),
            NotAPermutation { perm, rank } => format!(
                "{} is not a permutation of the view's {rank} dimensions",
                shape_str(&perm.iter().map(|&d| d as i64).collect::<Vec<_>>())
            ),
            LoadNotWaited { place, barrier, reader } => format!(
                "`{place}` is read here ({reader}) before its TMA load has landed: no \
                 `barrier_wait({barrier})` since the copy into it"
            ),
            BarrierArrivals { barrier, declared, expected, arrivals } if arrivals < expected => format!(
                "`{barrier}` is declared `{declared}`, but each of its phases gets {} before this \
                 wait: the wait never returns",
                arrivals_text(*arrivals)
            ),
            BarrierArrivals { barrier, declared, arrivals, .. } => format!(
                "`{barrier}` is declared `{declared}`, but each of its phases gets {}: this wait can \
                 return before the last of them arrives",
                arrivals_text(*arrivals)
            ),
            OverwrittenUnderWgmma { place, writer, .. } => {
                format!("`{place}` is overwritten here ({writer}) while a wgmma that reads it may still be in flight")
            }
            AccUnderWgmma { acc, store, .. } => format!(
                "the accumulator `{acc}` is {} here while a wgmma that writes it may still be in flight",
                if *store { "stored" } else { "read" }
            ),
            NotCommitted { place, reader } => format!(
                "`{place}` is read by {reader} here, but the register stores into it are not committed: \
                 {reader} may not see them"
            ),
            OverwrittenUnderTmaStore { place, writer, .. } => format!(
                "`{place}` is overwritten here ({writer}) while a TMA store that reads it may still be in flight"
            ),
            UnorderedWarpgroups { place, writer, write, reader } => format!(
                "`{place}` is written by warpgroup {writer} ({write}) and read here by warpgroup {reader}, \
                 with no barrier between them"
            ),
            PeerStoreNotComplete { place, .. } => format!(
                "this signal publishes a TMA store into another device's `{place}` whose writes may not be \
                 complete: that device may see the signal before the data"
            ),
            Unsupported { what, .. } => format!("unsupported in a tessel kernel: {what}"),
            Type { message, .. } => message.clone(),
            InCall { function, .. } => format!("in this call of `{function}`"),
        }
    }

    /// The `help:` line: how to fix it, correctly for PTX.
    pub fn help(&self) -> String {
        use Diag::*;
        match self {
            AccUnsigned { .. } => "PTX integer WGMMA accumulates in signed 32-bit (`.s32`): declare the \
                accumulator `Acc<i32, ..>`; PTX has no unsigned or 8-bit accumulator"
                .into(),
            AccCollective { shared: false } => "accumulators live in each warpgroup's registers: remove \
                `collective_axes = [..]` from this `run_scoped`"
                .into(),
            AccCollective { shared: true } => "keep the shared buffers and barriers in this collective \
                `run_scoped` (a kernel of several warpgroups allocates them together) and allocate the \
                accumulator inside it, in a `run_scoped(|acc: Acc<..>| ..)` of its own without collective_axes"
                .into(),
            CollectiveNotWarpgroup { wg: Some(wg), must_share: false } => format!(
                "collective_axes names the kernel's warpgroup axis and nothing else: write \
                 `collective_axes = [{wg}]`, or leave it out to allocate per warpgroup"
            ),
            CollectiveNotWarpgroup { wg: Some(wg), must_share: true } => format!(
                "collective_axes names the kernel's warpgroup axis and nothing else: write \
                 `collective_axes = [{wg}]` (a kernel of several warpgroups allocates shared memory and \
                 barriers collectively)"
            ),
            CollectiveNotWarpgroup { wg: None, must_share: false } => "this kernel declares no warpgroup \
                axis: add `warpgroup_axis = wg` to #[kernel] and write `collective_axes = [wg]`, or leave \
                collective_axes out"
                .into(),
            CollectiveNotWarpgroup { wg: None, must_share: true } => "this kernel declares no warpgroup \
                axis: add `warpgroup_axis = wg` to #[kernel] and write `collective_axes = [wg]` (a kernel \
                of several warpgroups allocates shared memory and barriers collectively)"
                .into(),
            SmemNotCollective { wg, declared: true } => format!(
                "shared memory and barriers are per program: write `run_scoped(collective_axes = [{wg}], \
                 |..| ..)` so that all warpgroups allocate them once, together"
            ),
            SmemNotCollective { wg, declared: false } => format!(
                "shared memory and barriers are per program: add `warpgroup_axis = {wg}` to #[kernel] and \
                 write `run_scoped(collective_axes = [{wg}], |..| ..)` so that all warpgroups allocate them \
                 once, together"
            ),
            AccDtype { .. } => "WGMMA accumulates in `f32` (any float operands), `f16` (f16 and fp8 \
                operands) or `i32` (i8 operands)"
                .into(),
            AccShape { .. } => "an accumulator is M x N with M a multiple of 64 (one m64 tile per \
                warpgroup row block) and N a multiple of 8"
                .into(),
            AccFromUnsigned => "convert the register array to `i32` first: `x.cast::<i32>()`".into(),
            PreinitOutsideRunState => "write `run_state(Acc::from_regs(x), |acc| { .. })`, or \
                allocate a zeroed accumulator with `run_scoped(|acc: Acc<..>| ..)`"
                .into(),
            SmemExceeded { .. } => "an sm_90 block has at most 232448 bytes (227 KiB) of shared \
                memory: use fewer pipeline stages or smaller tiles"
                .into(),
            AccStoreDtype { acc, .. } => format!("cast the value first: `.cast::<{acc}>()`"),
            AccStoreShape { acc, .. } => {
                format!("store a register array of the accumulator's shape {}", shape_str(acc))
            }
            AccStoreSliced => "store the whole accumulator: `acc.store(value)`".into(),
            NotAnAcc { .. } => "pass an accumulator allocated as `acc: Acc<f32, M, N>` in \
                `run_scoped`, or made by `run_state`"
                .into(),
            AccFromLayout { layout } => {
                format!("the register array is in {layout}; convert it first: `x.to_layout(Layout::Wgmma)`")
            }
            CannotReinterpret { from, to } => format!(
                "`layout_cast` reinterprets registers in place, and {from} and {to} place elements \
                 differently: move the data with `.to_layout({to})`"
            ),
            CannotConvert { from, to: Layout::Splat } => {
                format!("an array in {from} cannot become a splat; build one with `splat::<T>(value, [..])`")
            }
            CannotConvert { from, to } => format!(
                "tessel has no conversion from {from} to {to}; go through shared memory \
                 (`smem.store(x)` then `smem.load({to})`) or produce the array in {to} directly"
            ),
            IncompatibleLayouts { lhs, rhs } => {
                format!("the operands are in {lhs} and {rhs}; convert one with `.to_layout(..)` so both match")
            }
            IncompatibleShapes { lhs, rhs } => format!(
                "shapes {} and {} do not match; broadcast one explicitly with `.broadcast(..)`",
                shape_str(lhs),
                shape_str(rhs)
            ),
            BroadcastLayout { from: from @ (Layout::WgmmaRow | Layout::WgmmaCol), to } => {
                format!("a {from} vector broadcasts into Layout::Wgmma, not into {to}")
            }
            BroadcastLayout { from, .. } => format!(
                "only splats and the row and column vectors of Layout::Wgmma (from reductions such as \
                 `.sum(1)`) broadcast, not arrays in {from}"
            ),
            ShapeNot2d { .. } => "Layout::Wgmma holds 2-D arrays only".into(),
            ShapeNotWgmmaTile { .. } => {
                "Layout::Wgmma holds M x N arrays with M a multiple of 64 and N a multiple of 8".into()
            }
            LoopCarryLayout { carry, .. } => format!(
                "a value carried across loop iterations must keep its layout: convert it back with \
                 `.to_layout({carry})` before the end of the body"
            ),
            MmaIntAccNot32 { .. } => "integer mma.sync accumulates in signed 32-bit: use an `i32` \
                accumulator (`splat::<i32>(0, [M, N]).to_layout(Layout::MmaAcc)`)"
                .into(),
            MmaIntAccUnsigned { .. } => "PTX integer mma.sync accumulates in `.s32`: use `i32`".into(),
            MmaFloatAcc { .. } => "floating-point mma.sync in tessel accumulates in `f32`: use \
                `splat::<f32>(0.0, [M, N]).to_layout(Layout::MmaAcc)`"
                .into(),
            MmaOperandType { .. } => "mma.sync operands are bf16, f16, f8e4m3, f8e5m2, i8 or i4".into(),
            MmaDtypeMismatch { .. } => "A and B of an mma must have the same dtype".into(),
            MmaDimMismatch { .. } => "mma takes A as M x K, B as K x N and the accumulator as M x N".into(),
            MmaWarps { .. } => "the accumulator of a warpgroup's mma has 16, 32 or 64 rows (16 per \
                warp along M for 1, 2 or 4 warps)"
                .into(),
            MmaLayout { operand } => format!(
                "load the operand with `.load({})` or convert it with `.to_layout({})`",
                mma_layout(*operand),
                mma_layout(*operand)
            ),
            WgmmaOutDtype { .. } => "WGMMA writes `f32`, `f16` or `i32` accumulators: initialise \
                `run_state` from one of these, e.g. `Acc::from_regs(x.cast::<f32>())`"
                .into(),
            WgmmaAccForElement { allowed, .. } => format!(
                "declare the accumulator `Acc<{}, ..>`",
                rust_name(allowed.first().copied().unwrap_or(DType::F32))
            ),
            WgmmaMixedDtypes { .. } => "cast one operand when loading it, or store both in the same \
                dtype; only f8e4m3 and f8e5m2 may be mixed"
                .into(),
            WgmmaK { .. } => "A is M x K and B is K x N: their K must agree".into(),
            WgmmaAccShape { m, n, .. } => format!("A @ B is {m} x {n}: allocate the accumulator as `Acc<_, {m}, {n}>`"),
            WgmmaM { .. } => "A has M rows in multiples of 64 (m64 per instruction)".into(),
            WgmmaN { .. } => "split N into tiles of at most 256 columns, each a multiple of 8".into(),
            WgmmaIntN { .. } => "PTX integer wgmma has n8, n16, n24, n32, then n48 to n256 in steps of \
                16 (PTX ISA, wgmma.mma_async shapes)"
                .into(),
            WgmmaKStep { k_step, .. } => {
                format!("one wgmma instruction consumes K = {k_step} of this dtype: make K a multiple of {k_step}")
            }
            WgmmaTranspose { .. } => "8- and 32-bit WGMMA operands must be K-major: keep A as an \
                [M, K] buffer (not `Transposed`) and store B as an [N, K] buffer passed as `b_s.t()`"
                .into(),
            WgmmaBInRegisters { .. } => "B always comes from shared memory: copy it into an `Smem<..>` buffer".into(),
            WgmmaRegADtype { .. } => "A in registers is 16- or 8-bit: keep A in shared memory (tf32 \
                takes both operands from there), or cast it, e.g. `.cast::<bf16>()`, with B in the same dtype"
                .into(),
            WgmmaRegALayout { .. } => "convert A first: `a.to_layout(Layout::Wgmma)` (K-major WGMMA fragments)".into(),
            WgmmaUnsigned { .. } => "tessel's integer WGMMA takes signed `i8` operands".into(),
            WgmmaSwizzleMismatch { a, b } => {
                format!("A is swizzled by {a} bytes and B by {b}: declare both buffers with the same Swizzle")
            }
            NoSwizzle | BadSwizzle { .. } => "declare the buffer with `Swizzle32`, `Swizzle64` or `Swizzle128`".into(),
            SwizzleTrailingDim { n, .. } => format!(
                "a swizzled row holds {n} elements of this dtype: make the trailing dimension {n} (a \
                 buffer a multiple of {n} wide is stored as {n}-wide column blocks), or pick a narrower \
                 swizzle"
            ),
            TransposeSwizzled => "only the last two dimensions may be swapped (`.t()`)".into(),
            SliceSwizzled { width } => format!(
                "slice the swizzled dimension in whole swizzled rows ({width} elements of this dtype: \
                 start and length multiples of {width}), or only the leading dimensions"
            ),
            MatmulShapes { .. } => "wgmma takes acc [M, N], A [M, K] and B [K, N], all 2-D (pick a \
                pipeline stage with `.at(s)`)"
                .into(),
            ReduceAxisNotLiteral { op: ReduceOp::Sum } => {
                "`v.sum(1)` adds each row of a 2-D array, `v.sum(0)` each column; a 1-D array sums to a scalar".into()
            }
            ReduceAxisNotLiteral { op } => format!(
                "`v.{name}(1)` is each row's {noun}, `v.{name}(0)` each column's; a ReLU is `max(v + b, 0.0)`, \
                 a clamp `min(v, 6.0)`",
                name = op.name(),
                noun = reduce_noun(*op)
            ),
            Reduction { layout, shape } => reduce_layout_help(*layout, shape),
            BroadcastVectorLength { from, len, target } => broadcast_vector_help(*from, *len, target),
            StoreNotRegs { source: StoreSource::Acc { name }, .. } => format!(
                "an accumulator is read into registers with `.load()`: store `{}.load()`",
                name.as_deref().unwrap_or("acc")
            ),
            StoreNotRegs { source: StoreSource::SmemToGmem, .. } => "copy a shared buffer to a global tile with \
                `copy_smem_to_gmem(src, dst)` (after `commit_smem()`), or store registers loaded from it: \
                `src.load(Layout::Strided)`"
                .into(),
            StoreNotRegs { source: StoreSource::Memory, .. } => {
                "load it into registers first, e.g. `.load(Layout::Wgmma)`".into()
            }
            StoreNotRegs { source: StoreSource::Other, .. } => {
                "build the value with `splat`, loads or arithmetic".into()
            }
            NotAPermutation { rank, .. } => format!(
                "list each of the dimensions 0..{rank} once, e.g. `.transpose([{}])` swaps the last two",
                swapped_last_two(*rank)
            ),
            LoadNotWaited { barrier, .. } => format!(
                "wait for the copy first: `barrier_wait({barrier});` before this read (a TMA load lands \
                 when a wait on its barrier returns)"
            ),
            BarrierArrivals { arrivals: 0, barrier, .. } => format!(
                "nothing arrives on `{barrier}` before this wait: issue its copies (`copy_gmem_to_smem(.., .., \
                 {barrier})`) or `barrier_arrive({barrier})` first"
            ),
            BarrierArrivals { barrier, arrivals, .. } => format!(
                "declare `{barrier}` with {arrivals} arrivals per phase, or make each phase's arrivals match \
                 its declaration: one per `copy_gmem_to_smem` on it, and one per `barrier_arrive` of each \
                 warpgroup"
            ),
            OverwrittenUnderWgmma { wait, .. } => format!(
                "wait for that wgmma first: `wgmma_wait({wait});` before this write (`wgmma_wait(n)` returns \
                 when at most the `n` most recent wgmmas are in flight)"
            ),
            AccUnderWgmma { wait, .. } => format!(
                "wait for that wgmma first: `wgmma_wait({wait});` (a wgmma writes its accumulator until a \
                 `wgmma_wait` covers it)"
            ),
            NotCommitted { place, .. } => format!(
                "call `commit_smem();` between the stores into `{place}` and this read: it makes ordinary \
                 shared-memory writes visible to TMA and wgmma"
            ),
            OverwrittenUnderTmaStore { wait, .. } => {
                format!("wait for the store to read it first: `wait_smem_to_gmem({wait});` before this write")
            }
            UnorderedWarpgroups { writer, reader, .. } => format!(
                "order them with a barrier: warpgroup {writer} arrives on it after writing \
                 (`barrier_arrive(bar)`, or its TMA copy completes on `bar`) and warpgroup {reader} waits on \
                 it (`barrier_wait(bar)`) before reading"
            ),
            PeerStoreNotComplete { wait, .. } => format!(
                "wait for the store's writes first: `wait_smem_to_gmem({wait}, complete = true);` before this \
                 signal (`wait_smem_to_gmem({wait})` waits only for the store to read shared memory)"
            ),
            Unsupported { .. } => {
                "see the language reference in tessel's crate documentation for what kernels may use".into()
            }
            Type { help, .. } => help.clone(),
            InCall { function, broken: false } => {
                format!(
                    "`{function}` is inlined here: the error above is in its body, checked with this call's arguments"
                )
            }
            InCall { function, broken: true } => {
                format!("`{function}` has errors of its own (above), so this call of it cannot be compiled")
            }
        }
    }
}

fn reduce_verb(op: ReduceOp) -> &'static str {
    match op {
        ReduceOp::Sum => "adds",
        ReduceOp::Max => "takes the maximum",
        ReduceOp::Min => "takes the minimum",
    }
}

fn reduce_noun(op: ReduceOp) -> &'static str {
    match op {
        ReduceOp::Sum => "sum",
        ReduceOp::Max => "maximum",
        ReduceOp::Min => "minimum",
    }
}

/// The help of `Reduction`: a conversion when one makes the array reducible, else what reduces.
fn reduce_layout_help(layout: Layout, shape: &[i64]) -> String {
    match shape {
        [m, n] if m % 64 == 0 && n % 8 == 0 => {
            format!("convert it first: `.to_layout(Layout::Wgmma)` (from {layout}, through shared memory)")
        }
        [_, _] => format!(
            "Layout::Wgmma holds M x N arrays with M a multiple of 64 and N a multiple of 8, which {} is not: \
             reduce a tile of such a shape",
            shape_str(shape)
        ),
        [_] => "1-D arrays reduce from Layout::WgmmaRow, WgmmaCol or Strided, or a splat".into(),
        _ => format!(
            "a {}-D array does not reduce in registers: load it as 2-D tiles in Layout::Wgmma, or as 1-D arrays",
            shape.len()
        ),
    }
}

/// The axis a row or column vector runs along in the [M, N] array it broadcasts into, and that
/// array's extent along it.
fn vector_axis(from: Layout, target: &[i64]) -> (&'static str, i64) {
    let at = |i: usize| target.get(i).copied().unwrap_or(0);
    match from {
        Layout::WgmmaCol => ("column", at(1)),
        _ => ("row", at(0)),
    }
}

/// The help of `BroadcastVectorLength`: the other vector layout when the length fits the other
/// axis, else the target shape the vector fits.
fn broadcast_vector_help(from: Layout, len: i64, target: &[i64]) -> String {
    // The other vector layout, the axis its values run along, and the reduction that gives one.
    let (other, other_axis, other_extent, multiple, reduction) = match from {
        Layout::WgmmaCol => (Layout::WgmmaRow, "row", target.first().copied().unwrap_or(0), 64, "sum(1)"),
        _ => (Layout::WgmmaCol, "column", target.get(1).copied().unwrap_or(0), 8, "sum(0)"),
    };
    if len == other_extent && len % multiple == 0 {
        return format!(
            "{} has {len} {other_axis}s: a vector with one value per {other_axis} is in {other}; load it with \
             `.load({other})` (as `.{reduction}` of a 2-D array gives one)",
            shape_str(target)
        );
    }
    let (axis, _) = vector_axis(from, target);
    let fits = match from {
        Layout::WgmmaCol => format!("[M, {len}]"),
        _ => format!("[{len}, N]"),
    };
    format!("a {from} vector of length {len} broadcasts into a {fits} array, one value per {axis}")
}

/// `0, 2, 1` for three dimensions.
fn swapped_last_two(rank: usize) -> String {
    let mut dims: Vec<usize> = (0..rank).collect();
    if rank >= 2 {
        dims.swap(rank - 1, rank - 2);
    }
    dims.iter().map(usize::to_string).collect::<Vec<_>>().join(", ")
}

/// `1 arrival`, `3 arrivals`, `no arrival`.
fn arrivals_text(n: u32) -> String {
    match n {
        0 => "no arrival".into(),
        1 => "1 arrival".into(),
        n => format!("{n} arrivals"),
    }
}

fn mma_layout(operand: MmaOperand) -> &'static str {
    match operand {
        MmaOperand::A => "Layout::MmaLhs",
        MmaOperand::B => "Layout::MmaRhs",
        MmaOperand::Acc => "Layout::MmaAcc",
    }
}

fn rust_name(d: DType) -> &'static str {
    d.name()
}

/// `f32`, `f32 or f16`, `s32`: the catalog's spelling of accumulator lists (PTX's, for s32).
fn allowed_list(allowed: &[DType]) -> String {
    let names: Vec<&str> = allowed.iter().map(|d| if *d == DType::I32 { "s32" } else { d.name() }).collect();
    names.join(" or ")
}

/// Where a diagnostic points: from the first to the last token of what is wrong.
///
/// Both ends are kept because a stable proc macro cannot join two spans into one; `Ctxt::finish`
/// hands both to `syn::Error::new_spanned`, and rustc underlines the whole range.
#[derive(Clone, Copy, Debug)]
pub struct Loc {
    pub start: Span,
    pub end: Span,
}

impl Loc {
    pub fn new(start: Span, end: Span) -> Self {
        Loc { start, end }
    }

    /// Two tokens carrying the two ends, for `syn::Error::new_spanned`.
    fn tokens(self) -> TokenStream {
        [Ident::new("start", self.start), Ident::new("end", self.end)].into_iter().map(TokenTree::Ident).collect()
    }

    /// An error with `text` that underlines the whole range.
    pub fn error(self, text: impl std::fmt::Display) -> syn::Error {
        syn::Error::new_spanned(self.tokens(), text)
    }
}

impl From<Span> for Loc {
    fn from(span: Span) -> Self {
        Loc { start: span, end: span }
    }
}

/// Collects every error of a kernel; `finish` combines them into one `syn::Error`.
///
/// Like serde_derive's `Ctxt`: checking never stops at the first problem.
#[derive(Default)]
pub struct Ctxt {
    /// Each error, with the calls of kernel functions in whose bodies it was found (innermost
    /// first; several calls when the same error came from several), which get notes.
    errors: RefCell<Vec<(Loc, Diag, Vec<usize>)>>,
    next_id: std::cell::Cell<u32>,
    /// Names whose declaration was rejected with an error: their uses report nothing more.
    rejected: RefCell<Vec<String>>,
    /// While `syntax` lowers a copy of an `#[unroll]` loop's body: each enclosing unrolled loop's
    /// counter and its value in this copy (innermost last).
    unrolled: RefCell<Vec<(String, i64)>>,
    /// The consts `syntax` has read so far whose values it could compute (the attribute's, then
    /// the body's `const` items): what an `#[unroll]` loop's bounds may name.
    known_consts: RefCell<Vec<(String, i64)>>,
    /// The kernel's parameters that `#[when(..)]` leaves out (`syntax::when`): a use of one says so.
    left_out: RefCell<Vec<String>>,
    /// Where a `macro_rules!` substituted fragments into the kernel (`Ctxt::note_fragments`).
    fragments: RefCell<Option<Fragments>>,
    /// The kernel functions the body may call, and the calls inlined (`syntax::inline`).
    pub calls: crate::syntax::inline::Calls,
    /// The `W` of the kernel's `devices = W`, once its attribute is read: what `device_count()`
    /// is where a value must be known when the kernel is read (an `#[unroll]` loop's bounds).
    devices: std::cell::Cell<Option<u32>>,
}

/// The fragments (`$t:ty`, `$e:expr`, ..) that a `macro_rules!` substituted into a kernel: rustc
/// hands each in an invisible group (`Delimiter::None`) whose span is the `$e` in the macro's
/// body, while the tokens inside keep the spans they have where the macro was invoked. The two
/// belong to different expansions, and rustc cannot underline a range from one to the other: it
/// falls back to a span of neither (a whole macro, or a stretch of its body). So a diagnostic's
/// range with one end inside a fragment and the other outside it (a shape `Acc<f32, 64, $n>`, an
/// operation `$e * 2`) is widened to the fragment's `$e`, the body as the macro writes it; rustc
/// adds the invocation ("in this macro invocation"). A range inside one fragment (an error in what
/// the user passed) keeps the user's tokens.
///
/// A stable proc macro cannot compare spans; their `Debug` text stands for them (as it does for
/// `Ctxt::error`'s duplicates): rustc prints the expansion and the bytes, which tell tokens apart.
struct Fragments {
    /// Every token of the attribute and the function, in order, by its span's text; a delimited
    /// group gives its opening (and its whole span) and its closing, an invisible one its own span.
    tokens: Vec<String>,
    /// Each invisible group: its span, and the range of `tokens` inside it.
    groups: Vec<(Span, Range<usize>)>,
}

fn span_key(span: Span) -> String {
    format!("{span:?}")
}

fn has_invisible_group(tokens: &TokenStream) -> bool {
    tokens.clone().into_iter().any(|tt| match tt {
        TokenTree::Group(g) => g.delimiter() == Delimiter::None || has_invisible_group(&g.stream()),
        _ => false,
    })
}

impl Fragments {
    fn scan(&mut self, tokens: TokenStream) {
        for tt in tokens {
            match tt {
                TokenTree::Group(g) if g.delimiter() == Delimiter::None => {
                    self.tokens.push(span_key(g.span()));
                    let start = self.tokens.len();
                    self.scan(g.stream());
                    self.groups.push((g.span(), start..self.tokens.len()));
                }
                TokenTree::Group(g) => {
                    self.tokens.push(span_key(g.span_open()));
                    self.tokens.push(span_key(g.span()));
                    self.scan(g.stream());
                    self.tokens.push(span_key(g.span_close()));
                }
                other => self.tokens.push(span_key(other.span())),
            }
        }
    }

    /// `at`, with an end that lies in fragments the other end is not in moved out to the
    /// outermost of them (its `$e`). Ends that are no token of the kernel are left as they are.
    fn within_one_expansion(&self, at: Loc) -> Loc {
        let (start, end) = (span_key(at.start), span_key(at.end));
        if start == end {
            return at;
        }
        let places = |key: &str| -> Vec<usize> { (0..self.tokens.len()).filter(|&k| self.tokens[k] == key).collect() };
        let (starts, ends) = (places(&start), places(&end));
        // A fragment substituted twice has its tokens twice: the two ends nearest each other.
        let nearest =
            starts.iter().flat_map(|&i| ends.iter().map(move |&j| (i, j))).min_by_key(|&(i, j)| i.abs_diff(j));
        let Some((i, j)) = nearest else { return at };
        let outermost_apart = |k: usize, other: usize| {
            self.groups
                .iter()
                .filter(|(_, inside)| inside.contains(&k) && !inside.contains(&other))
                .max_by_key(|(_, inside)| inside.len())
                .map(|(span, _)| *span)
        };
        Loc { start: outermost_apart(i, j).unwrap_or(at.start), end: outermost_apart(j, i).unwrap_or(at.end) }
    }
}

impl Ctxt {
    pub fn new() -> Self {
        Ctxt::default()
    }

    /// A fresh expression id (see `ast::ExprId`).
    pub fn next_id(&self) -> u32 {
        let id = self.next_id.get();
        self.next_id.set(id + 1);
        id
    }

    /// How many expression ids were handed out.
    pub fn id_count(&self) -> u32 {
        self.next_id.get()
    }

    /// Notes where the kernel's tokens (the attribute's and the function's) hold fragments that a
    /// `macro_rules!` substituted, so that no diagnostic's range spans two expansions
    /// (`Fragments`). Nothing to do for a kernel without them.
    pub fn note_fragments(&self, attr: &TokenStream, item: &TokenStream) {
        if !has_invisible_group(attr) && !has_invisible_group(item) {
            return;
        }
        let mut fragments = Fragments { tokens: Vec::new(), groups: Vec::new() };
        fragments.scan(attr.clone());
        fragments.scan(item.clone());
        *self.fragments.borrow_mut() = Some(fragments);
    }

    /// Records a diagnostic at `at`: a span, or an expression (`&Expr`) to underline whole. The
    /// same message at the same place is recorded once (each copy of an `#[unroll]` loop's body
    /// is checked, and would repeat its errors).
    pub fn error(&self, at: impl Into<Loc>, diag: Diag) {
        let at = match &*self.fragments.borrow() {
            Some(fragments) => fragments.within_one_expansion(at.into()),
            None => at.into(),
        };
        let calls = self.calls.open();
        let same = |(loc, d, _): &&mut (Loc, Diag, Vec<usize>)| {
            format!("{:?}{:?}", loc.start, loc.end) == format!("{:?}{:?}", at.start, at.end)
                && d.message() == diag.message()
        };
        let mut errors = self.errors.borrow_mut();
        match errors.iter_mut().find(same) {
            // The same error from another call of a kernel function: a note at that call too.
            Some((_, _, seen)) => {
                for call in calls {
                    if !seen.contains(&call) {
                        seen.push(call);
                    }
                }
            }
            None => errors.push((at, diag, calls)),
        }
    }

    /// How many errors were recorded so far.
    pub fn error_count(&self) -> usize {
        self.errors.borrow().len()
    }

    /// Runs `f` (which reads a kernel function's body) outside the unrolled loops and consts read
    /// so far: they are the caller's names, which the function does not see.
    pub fn isolated<R>(&self, f: impl FnOnce() -> R) -> R {
        let unrolled = self.unrolled.take();
        let consts = self.known_consts.take();
        let out = f();
        *self.unrolled.borrow_mut() = unrolled;
        *self.known_consts.borrow_mut() = consts;
        out
    }

    /// Lowers `f` with the unrolled loop counter `name` standing for `value`.
    pub fn with_unrolled<R>(&self, name: &syn::Ident, value: i64, f: impl FnOnce() -> R) -> R {
        self.unrolled.borrow_mut().push((name.to_string(), value));
        let out = f();
        self.unrolled.borrow_mut().pop();
        out
    }

    /// Records a const whose value `syntax` computed.
    pub fn know_const(&self, name: &syn::Ident, value: i64) {
        self.known_consts.borrow_mut().push((name.to_string(), value));
    }

    /// The value of the const `name`, if `syntax` could compute it (the latest definition).
    /// Records the kernel's `devices = W` (`None` without it).
    pub fn set_devices(&self, w: Option<u32>) {
        self.devices.set(w);
    }

    /// The kernel's `W`, once its attribute is read and if it has `devices = W`.
    pub fn devices(&self) -> Option<u32> {
        self.devices.get()
    }

    pub fn known_const(&self, name: &syn::Ident) -> Option<i64> {
        self.known_consts.borrow().iter().rev().find(|(n, _)| name == n).map(|(_, v)| *v)
    }

    /// The value in this copy of the unrolled loop counter `name`, if it is one.
    pub fn unrolled_value(&self, name: &syn::Ident) -> Option<i64> {
        self.unrolled.borrow().iter().rev().find(|(n, _)| name == n).map(|(_, v)| *v)
    }

    /// Shorthand for an error of tessel's own rule `code`.
    pub fn type_error(&self, at: impl Into<Loc>, code: Code, message: impl Into<String>, help: impl Into<String>) {
        self.error(at, Diag::Type { code, message: message.into(), help: help.into() });
    }

    /// A state checking rules out: a bug in tessel, reported as one.
    pub fn internal(&self, at: impl Into<Loc>, what: impl Into<String>) {
        self.type_error(
            at,
            Code::Internal,
            format!("internal tessel error: {}", what.into()),
            "this is a bug in tessel; please report it",
        );
    }

    /// Syntax the language does not have; `code` is the rule.
    pub fn unsupported(&self, at: impl Into<Loc>, code: Code, what: impl Into<String>) {
        self.error(at, Diag::Unsupported { code, what: what.into() });
    }

    /// Records that the declaration of `name` was rejected (with an error of its own).
    pub fn reject_declaration(&self, name: &syn::Ident) {
        self.rejected.borrow_mut().push(name.to_string());
    }

    /// Records the kernel parameters that `#[when(..)]` leaves out of this kernel (or instance).
    pub fn leave_out(&self, names: impl IntoIterator<Item = String>) {
        self.left_out.borrow_mut().extend(names);
    }

    /// Whether `name` is a kernel parameter that `#[when(..)]` leaves out here.
    pub fn left_out(&self, name: &str) -> bool {
        self.left_out.borrow().iter().any(|n| n == name)
    }

    /// Whether a declaration of `name` was rejected, so that "cannot find" would only repeat it.
    pub fn declaration_rejected(&self, name: &str) -> bool {
        self.rejected.borrow().iter().any(|n| n == name)
    }

    pub fn has_errors(&self) -> bool {
        !self.errors.borrow().is_empty()
    }

    /// The diagnostics so far, in the order they were found, each at the start of its range.
    pub fn diags(&self) -> Vec<(Span, Diag)> {
        self.errors.borrow().iter().map(|(loc, d, _)| (loc.start, d.clone())).collect()
    }

    /// Every error as where it points and its text (code and message, then the `help:` line), in the order
    /// they were found, an error found in the body of a call of a kernel function followed by a
    /// note at that call (and at the calls around it), once per call: what `finish` combines, for
    /// callers that reword errors before reporting them (a generic kernel's instances).
    pub fn into_errors(self) -> Vec<(Loc, String)> {
        let text = |d: &Diag| format!("{}\nhelp: {}", d.code().label(d.message()), d.help());
        let mut out = Vec::new();
        // The calls noted, by place: the copies of an unrolled loop's body are calls at one place.
        let mut noted = Vec::new();
        for (loc, diag, calls) in self.errors.take() {
            out.push((loc, text(&diag)));
            for site in calls.into_iter().filter_map(|call| self.calls.site(call)) {
                let place = format!("{:?}{:?}{}", site.at.start, site.at.end, site.function.name);
                if !noted.contains(&place) {
                    out.push((
                        site.at,
                        text(&Diag::InCall { function: site.function.name.to_string(), broken: false }),
                    ));
                    noted.push(place);
                }
            }
        }
        out
    }

    /// All errors combined, or `Ok` when there were none.
    pub fn finish(self) -> Result<(), syn::Error> {
        let mut combined: Option<syn::Error> = None;
        for (loc, text) in self.into_errors() {
            let err = loc.error(text);
            match &mut combined {
                Some(all) => all.combine(err),
                None => combined = Some(err),
            }
        }
        combined.map_or(Ok(()), Err)
    }
}
