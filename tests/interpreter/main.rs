//! The interpreter on its own, through the `interpret` functions `#[kernel]` generates, without a
//! GPU: GEMMs of every WGMMA operand class (`gemm`), warp-level `mma` (`mma`), register arrays
//! (`regs`), warpgroups, barriers, clusters and deadlocks (`sync`), TMA copies and accesses outside
//! the arrays (`tma`), bad arguments (`errors`), and races the detector reports (`races`), each
//! checked against an f64 or bit-exact reference (`support`). One test binary, to link once.

mod support;

mod atomics;
mod errors;
mod gemm;
mod mma;
mod races;
mod regs;
mod sync;
mod tma;
