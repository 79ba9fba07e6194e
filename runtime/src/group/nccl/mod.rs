//! Host collectives through NCCL (cudarc's `nccl` bindings, loaded at run time like libcuda).
//!
//! `library` is the gate (NCCL present, new enough) and turns NCCL results into errors; `dtype`
//! maps element types; `collectives` owns the communicators and checks every argument before
//! NCCL sees it.

mod collectives;
mod dtype;
mod library;

pub use collectives::{Collectives, ReduceOp};
pub use library::nccl_version;
pub(crate) use library::{nccl_version_text, MIN_NCCL_VERSION};
