//! The error index: the stable code of every compile error `#[kernel]` and `#[kernels]` give
//! (`T0001`, `T0002`, ..), shown at the start of its message (`error: [T0001] Invalid WGMMA ..`)
//! and explained, with a wrong and a right kernel, in `docs/errors.md`.
//!
//! A code names the rule a kernel breaks, not one wording: a catalog message (a `Diag` variant)
//! has a code of its own; tessel's own rules (`Diag::Type`, `Diag::Unsupported`, given at each
//! call site of `Ctxt::type_error` and `Ctxt::unsupported`) share a code per rule, and every
//! internal error has `Internal`.
//!
//! `compiler-tests/tests/errors.rs` checks that every code here has its entry in `docs/errors.md` and the other
//! way round, that each entry's wrong kernel fails with exactly its code and its right kernel
//! compiles.

use crate::diag::Diag;

/// The table, written once: `Name = number`, and `in Diag` where the row is also the `Diag`
/// variant of that name. It makes `Code` (the numbers are its discriminants, so rustc rejects a
/// number used twice), `Code::ALL` and `Diag::code` (whose match is exhaustive, so a `Diag`
/// variant without a row does not compile).
macro_rules! codes {
    (
        $( $(#[$doc:meta])* $name:ident = $n:literal $(in $diag:ident)?, )*
    ) => {
        /// A compile error's stable code; see the module documentation and `docs/errors.md`.
        #[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
        #[repr(u16)]
        pub enum Code {
            $( $(#[$doc])* $name = $n, )*
        }

        impl Code {
            /// Every code in use, in the table's order.
            pub const ALL: &'static [Code] = &[$(Code::$name,)*];
        }

        impl Diag {
            /// The diagnostic's code: its variant's row, or the rule its call site named.
            pub fn code(&self) -> Code {
                match self {
                    $( $( $diag::$name { .. } => Code::$name, )? )*
                    Diag::Type { code, .. } | Diag::Unsupported { code, .. } => *code,
                }
            }
        }
    };
}

// How to add a message:
// - a new catalog message is a new `Diag` variant: add its row `Name = N in Diag,` (the build fails
//   until it has one);
// - a new `ctx.type_error(at, Code::X, ..)` or `ctx.unsupported(at, Code::X, ..)` names the rule
//   it checks: an existing row if the message is one more case of that rule, else a new row
//   `Name = N,`;
// then give the new code its entry in `docs/errors.md`, at the same place in its area as the row
// (`cargo test -p tessel-compiler-tests --test compiler errors::` says which are missing or out of order). N
// is the largest number in use plus one, whatever the area: a code never changes its number, and a
// code no message gives any more leaves the table for `Code::RETIRED` (below), its number never
// reused, its entry kept and marked retired. The rows are grouped by area (A to K, as the
// catalog's ids, then L and Z).
codes! {
    // ---- A. accumulator allocation, shared memory and registers ----------------------------------
    /// SEED 000: an accumulator of an unsigned dtype.
    AccUnsigned = 1 in Diag,
    /// SEED 002: an accumulator in a collective `run_scoped`.
    AccCollective = 2 in Diag,
    /// A3: `collective_axes` names another axis than the warpgroup axis.
    CollectiveNotWarpgroup = 3 in Diag,
    /// A4: shared memory or a barrier allocated per warpgroup.
    SmemNotCollective = 4 in Diag,
    /// A5: an accumulator dtype WGMMA cannot write.
    AccDtype = 5 in Diag,
    /// A6: an accumulator shape that is not M x N in WGMMA tiles.
    AccShape = 6 in Diag,
    /// A7: an accumulator made from an unsigned register array.
    AccFromUnsigned = 7 in Diag,
    /// A8: `Acc::from_regs` outside `run_state`.
    PreinitOutsideRunState = 8 in Diag,
    /// A9: more shared memory than a block has.
    SmemExceeded = 9 in Diag,
    /// A `run_scoped` parameter that is not an allocation.
    NotAllocatable = 10,
    /// An allocation that leaves its `run_scoped`.
    EscapesRunScoped = 11,
    /// A barrier's arrival count or array length out of range.
    BarrierCount = 12,
    /// A value that needs more than 255 registers per thread.
    TooManyRegisters = 13,
    /// `max_registers` / `set_max_registers` that PTX or the SM cannot grant.
    RegisterCap = 14,

    // ---- B. accumulator loads and stores ---------------------------------------------------------
    /// SEED 003: a value of another dtype stored into an accumulator.
    AccStoreDtype = 15 in Diag,
    /// B2: a value of another shape stored into an accumulator.
    AccStoreShape = 16 in Diag,
    /// B3: a store into a slice of an accumulator.
    AccStoreSliced = 17 in Diag,
    /// B4: an accumulator operation on something that is not one.
    NotAnAcc = 18 in Diag,
    /// An accumulator loaded in another layout than `Layout::Wgmma`.
    AccLoadLayout = 19,
    /// A store into a shared buffer or a global tile of another shape or dtype.
    StoreMismatch = 20,
    /// A store of something that is not a register array (an accumulator not loaded, a buffer).
    StoreNotRegs = 110 in Diag,

    // ---- C. register layouts ---------------------------------------------------------------------
    /// SEED 004: an accumulator made from an array not in `Layout::Wgmma`.
    AccFromLayout = 21 in Diag,
    /// C2: a layout conversion tessel does not have.
    CannotConvert = 22 in Diag,
    /// C2 (`layout_cast`): layouts whose registers do not line up.
    CannotReinterpret = 23 in Diag,
    /// C3: an elementwise operation on arrays in different layouts.
    IncompatibleLayouts = 24 in Diag,
    /// C4: an elementwise operation on arrays of different shapes.
    IncompatibleShapes = 25 in Diag,
    /// C5: a broadcast between layouts that do not broadcast.
    BroadcastLayout = 26 in Diag,
    /// C6: `Layout::Wgmma` asked to hold an array that is not 2-D.
    ShapeNot2d = 27 in Diag,
    /// C6: `Layout::Wgmma` asked to hold a shape that is not in 64 x 8 tiles.
    ShapeNotWgmmaTile = 28 in Diag,
    /// C7: a loop-carried array that changes layout.
    LoopCarryLayout = 29 in Diag,
    /// A layout asked to hold a shape it cannot (vector layouts, mma fragments).
    LayoutShape = 30,
    /// A variable left in different layouts by the two branches of an `if`.
    BranchesDisagree = 31,
    /// A reduction tessel does not have.
    Reduction = 32 in Diag,
    /// A vector broadcast along the axis it does not cover (a row vector for columns).
    BroadcastVectorLength = 111 in Diag,
    /// `.max(x)` / `.min(x)` / `.sum(x)` with an axis that is not an integer literal.
    ReduceAxisNotLiteral = 112 in Diag,

    // ---- D. warp-level mma -----------------------------------------------------------------------
    /// SEED 001: integer `mma` into an accumulator that is not 32-bit.
    MmaIntAccNot32 = 33 in Diag,
    /// D2: integer `mma` into an unsigned accumulator.
    MmaIntAccUnsigned = 34 in Diag,
    /// D3: float `mma` into an accumulator that is not `f32`.
    MmaFloatAcc = 35 in Diag,
    /// D4: `mma` operands of a dtype it does not take.
    MmaOperandType = 36 in Diag,
    /// D5: `mma` operands of two dtypes.
    MmaDtypeMismatch = 37 in Diag,
    /// D6: `mma` operands whose M, N or K disagree.
    MmaDimMismatch = 38 in Diag,
    /// D7: an `mma` accumulator of 16, 32 or 64 rows it is not.
    MmaWarps = 39 in Diag,
    /// D8: an `mma` operand not in its fragment layout.
    MmaLayout = 40 in Diag,
    /// An `mma` shape the instruction tiles cannot cover.
    MmaShape = 41,

    // ---- E. wgmma operands -----------------------------------------------------------------------
    /// E1: `wgmma` into an accumulator of a dtype it cannot write.
    WgmmaOutDtype = 42 in Diag,
    /// E2, E3, E4: an accumulator dtype the operands' dtype does not allow.
    WgmmaAccForElement = 43 in Diag,
    /// E5: A and B of different dtypes.
    WgmmaMixedDtypes = 44 in Diag,
    /// E6: A's and B's K disagree.
    WgmmaK = 45 in Diag,
    /// E7: an accumulator of another shape than A @ B.
    WgmmaAccShape = 46 in Diag,
    /// E8: M not a multiple of 64.
    WgmmaM = 47 in Diag,
    /// E8: N not a multiple of 8 up to 256.
    WgmmaN = 48 in Diag,
    /// E8: an integer N PTX does not have.
    WgmmaIntN = 49 in Diag,
    /// E8: K not a multiple of the instruction's K.
    WgmmaKStep = 50 in Diag,
    /// E9: a transposed operand of a dtype that cannot be.
    WgmmaTranspose = 51 in Diag,
    /// E10: B in registers.
    WgmmaBInRegisters = 52 in Diag,
    /// E11: A in registers of a dtype that cannot be.
    WgmmaRegADtype = 53 in Diag,
    /// E11: A in registers in another layout than `Layout::Wgmma`.
    WgmmaRegALayout = 54 in Diag,
    /// E12: an unsigned operand.
    WgmmaUnsigned = 55 in Diag,
    /// E13: A and B swizzled differently.
    WgmmaSwizzleMismatch = 56 in Diag,
    /// E14: an unswizzled operand.
    NoSwizzle = 57 in Diag,
    /// E14: a swizzle other than 32, 64 or 128 bytes.
    BadSwizzle = 58 in Diag,
    /// E15: a swizzle wider or narrower than the buffer's rows.
    SwizzleTrailingDim = 59 in Diag,
    /// E16: a transpose of the swizzled dimension.
    TransposeSwizzled = 60 in Diag,
    /// E16: a slice of the swizzled dimension that cuts its column blocks.
    SliceSwizzled = 61 in Diag,
    /// E17: operands that are not acc [M, N], A [M, K], B [K, N].
    MatmulShapes = 62 in Diag,
    /// `wgmma` operands of a dtype WGMMA does not multiply.
    WgmmaOperandDtype = 63,

    // ---- F. shared memory, views, TMA and clusters ----------------------------------------------
    /// A shared buffer's transforms (`Swizzle`, `Tiled`, `Transposed`) that do not apply.
    SmemTransform = 64,
    /// A slice or a transpose tessel cannot view.
    View = 65,
    /// `.transpose(..)` with a list that is not a permutation of the view's dimensions.
    NotAPermutation = 113 in Diag,
    /// A tile of a global array that does not fit it.
    TileShape = 66,
    /// A TMA or bulk copy the hardware cannot make.
    TmaCopy = 67,
    /// A write into a read-only `Gmem` array.
    ReadOnly = 68,
    /// A cluster operation in a kernel without a cluster.
    NeedsCluster = 69,
    /// A constant index past the end (`.at(i)`, a cluster rank).
    IndexOutOfRange = 70,
    /// A reducing TMA store of a dtype its operation does not combine.
    TmaReduceDtype = 136,
    /// `reduce = ..` naming no reduction.
    ReduceOpName = 137,
    /// `.atomic_add` of a dtype `red.global.add` does not add.
    AtomicAddDtype = 138,
    /// `.atomic_add` into something other than a tile of a global array.
    AtomicAddTarget = 139,
    /// `.atomic_add` of something other than a register array.
    AtomicAddValue = 140,

    // ---- G. semaphores ---------------------------------------------------------------------------
    /// A semaphore array that is not a 1-D `GmemMut<u32, N>` parameter.
    SemaphoreArray = 71,
    /// A semaphore index, range or count out of range.
    SemaphoreIndex = 72,

    // ---- H. values, types and names --------------------------------------------------------------
    /// A value of the wrong kind for an operation (a buffer for an array, ..).
    OperandKind = 73,
    /// Operands of two dtypes.
    DtypeMismatch = 74,
    /// An operation that does not apply to a dtype.
    OperatorDtype = 75,
    /// An index, bound, count or condition of the wrong scalar type.
    ScalarType = 76,
    /// A literal its type cannot hold.
    Literal = 77,
    /// A value of another type than the one declared.
    MismatchedTypes = 78,
    /// A block that has, or lacks, a value.
    BlockValue = 79,
    /// An `if` whose branches give different types.
    IfTypes = 80,
    /// A value computed and dropped.
    DroppedValue = 81,
    /// A name that is not defined, or not a value.
    UnknownName = 82,
    /// An assignment to what cannot be assigned.
    Immutable = 83,
    /// A name defined twice, or taken.
    NameClash = 84,
    /// A const whose value is not a known `i32`.
    ConstValue = 85,
    /// A dimension that is not a positive compile-time integer in range.
    Dimension = 86,
    /// An axis that does not exist.
    AxisOutOfRange = 87,
    /// `ragged(..)` naming what is not a runtime dimension.
    Ragged = 88,
    /// A division of a ragged dimension that drops its last tile.
    RaggedDivision = 89,
    /// A parameter type the launch API cannot pass.
    ParamType = 90,

    // ---- I. the attribute, syntax and the operations' forms --------------------------------------
    /// A `#[kernel(..)]` argument that is missing, unknown or malformed.
    KernelAttribute = 91,
    /// A kernel's signature in a form tessel does not have.
    UnsupportedSignature = 92,
    /// Rust syntax a kernel body does not have.
    UnsupportedSyntax = 93,
    /// A call of what is not a tessel operation.
    UnknownOperation = 94,
    /// A tessel operation called in a form it does not have.
    OperationForm = 95,
    /// A type tessel does not have, or written in a form it does not have.
    TypeSyntax = 96,
    /// An `#[unroll]` loop that cannot be unrolled.
    Unroll = 97,
    /// A `Pipeline` or its steps in a form they do not have.
    Pipeline = 98,
    /// A producer step that issues another number of copies than its ring says.
    PipelineCopies = 99,

    // ---- J. kernel functions (`#[kernels]` modules, `#[kernel_fns]` libraries) ------------------
    /// An item a `#[kernels]` module does not hold.
    ModuleItem = 100,
    /// A kernel function's parameter of a kind it cannot take.
    FunctionParam = 101,
    /// A call of a kernel function with the wrong arguments.
    FunctionArgument = 102,
    /// A kernel function whose body does not give its return type.
    FunctionReturn = 103,
    /// Calls that cannot be inlined: recursion, or too many.
    Inlining = 104,
    /// The note at a call of a kernel function whose body has the error above.
    InCall = 105 in Diag,
    /// An item or argument a `#[kernel_fns]` library does not hold or take.
    LibraryItem = 124,
    /// A `#[kernels(..)]` argument other than `uses(..)`, or a library `uses(..)` lists twice.
    Uses = 125,
    /// A name that two of a module's sources define: the module and a library it uses, or two
    /// libraries.
    LibraryClash = 126,
    /// A call from a module of a library's function that is not `pub`.
    PrivateFunction = 127,

    // ---- K. generic kernels ----------------------------------------------------------------------
    /// A generic parameter of a form tessel does not have.
    GenericParam = 106,
    /// `instances(..)` that does not list the instances of the kernel's parameters.
    Instances = 107,
    /// A call of an instance the kernel does not list (rustc's error at the call).
    UndeclaredInstance = 108,
    /// A value that decides the kernel's form when it is read (a flag such as `multicast = ..`, a
    /// `#[when(..)]` condition, a kernel function's generic argument) that is not known then.
    KnownValue = 121,
    /// A call of a generic kernel function without its generic arguments, or with the wrong ones.
    FunctionGenerics = 122,
    /// An attribute on an allocation other than `#[when(condition)]`.
    AllocationAttr = 123,
    /// An attribute on a kernel parameter or a dimension of `ragged(..)` other than
    /// `#[when(condition)]`.
    WhenAttr = 141,
    /// A use of a kernel parameter that `#[when(..)]` leaves out of the kernel (or instance).
    LeftOutParam = 142,
    /// An attribute on a kernel function's parameter (a kernel function takes every argument).
    FunctionParamAttr = 143,

    // ---- L. synchronization (the `sync` stage) ----------------------------------------------------
    /// S1: a shared buffer read before a wait on the barrier of the TMA load into it.
    LoadNotWaited = 114 in Diag,
    /// S2: a barrier whose phases get fewer or more arrivals than it is declared with.
    BarrierArrivals = 115 in Diag,
    /// S3: a shared buffer overwritten while a wgmma that reads it may be in flight.
    OverwrittenUnderWgmma = 116 in Diag,
    /// S4: an accumulator read or stored while a wgmma that writes it may be in flight.
    AccUnderWgmma = 117 in Diag,
    /// S5: a TMA store, peer copy or wgmma of register stores not committed (`commit_smem`).
    NotCommitted = 118 in Diag,
    /// S6: a shared buffer overwritten while a TMA store that reads it may be in flight.
    OverwrittenUnderTmaStore = 119 in Diag,
    /// S7: a shared buffer written by one warpgroup and read by another with no barrier between.
    UnorderedWarpgroups = 120 in Diag,
    /// S8: a TMA store into another device's memory not complete at a signal that publishes it.
    PeerStoreNotComplete = 149 in Diag,

    // ---- M. several devices (`devices = W`) ------------------------------------------------------
    /// `#[peers]`, `remote(..)`, `device_id()` or `device_count()` in a kernel without `devices`.
    NeedsDevices = 144,
    /// `#[peers]` on what is not a global array, or written in a form it does not have.
    PeersParam = 145,
    /// `remote(..)` of what is not a `#[peers]` parameter.
    RemoteOperand = 146,
    /// A device rank that is not a 32-bit integer, or a constant one outside the group.
    DeviceRank = 147,
    /// `semaphore_wait` on another device's counter.
    WaitOnPeer = 148,
    /// More kernel parameters (peer addresses and tensor maps among them) than an entry takes.
    ParamSpace = 150,

    // ---- Z. bugs ---------------------------------------------------------------------------------
    /// A bug in tessel ("internal tessel error: ..").
    Internal = 109,
}

impl Code {
    /// The numbers of the codes no message gives any more: reserved, never given again (their
    /// entries stay in `docs/errors.md`, marked retired).
    pub const RETIRED: &'static [u16] = &[];
}

impl Code {
    /// The code's number: `T0004` is 4.
    pub fn number(self) -> u16 {
        self as u16
    }

    /// `text` with this code in front: `[T0004] text`, the first line of a compile error.
    pub fn label(self, text: impl std::fmt::Display) -> String {
        format!("[{self}] {text}")
    }
}

impl std::fmt::Display for Code {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "T{:04}", self.number())
    }
}

/// An internal error (a bug in tessel, not in the kernel) at `at`, as `Internal`'s compile error.
pub(crate) fn internal_error(at: proc_macro2::Span, text: impl std::fmt::Display) -> syn::Error {
    syn::Error::new(at, Code::Internal.label(format_args!("internal tessel error: {text}")))
}

#[cfg(test)]
mod tests {
    use super::Code;

    #[test]
    fn no_code_reuses_a_retired_number() {
        let reused: Vec<Code> = Code::ALL.iter().copied().filter(|c| Code::RETIRED.contains(&c.number())).collect();
        assert!(reused.is_empty(), "retired numbers given again: {reused:?}");
    }

    #[test]
    fn codes_read_as_the_index_writes_them() {
        assert_eq!(Code::AccUnsigned.to_string(), "T0001");
        assert_eq!(Code::Internal.label("x"), "[T0109] x");
    }
}
