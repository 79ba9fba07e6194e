//! tessel's intermediate representation: what the compiler's back ends and the interpreter share.
//!
//! - [`types`]: element dtypes, register layouts, swizzles and the rounding rules every stage
//!   agrees on;
//! - [`legality`]: what the hardware accepts, as tables citing the PTX ISA;
//! - [`ty`]: the types `typeck` gives to values;
//! - [`ops`]: the language's operators and named operations;
//! - [`memory`]: the kernel's memory plan (allocations, tensor maps);
//! - [`program`]: the checked kernel with names resolved, constants folded, allocations bound,
//!   and no spans: what the interpreter runs;
//! - [`codec`]: the program as bytes, as the macro embeds it;
//! - [`compress`]: the compression of the PTX the macro embeds.
//!
//! This crate has no dependency on syn, quote or proc-macro2: a binary that runs kernels links
//! none of the compiler.

pub mod codec;
pub mod compress;
pub mod legality;
pub mod memory;
pub mod ops;
pub mod program;
pub mod ty;
pub mod types;
pub mod visit;

pub use program::Program;
