//! The compiler's test suite, one test binary (the compiler and its dependencies linked once, not
//! six times): filter by module, e.g. `cargo test -p tessel-compiler-tests --test compiler ui::`.
//!
//! - `ui`: the ui cases through rustc (trybuild) and through the compiler (`tests/ui/`);
//! - `errors`: every error code's wrong and right kernels in `docs/errors.md`;
//! - `ptx`: the golden PTX (`tests/ptx/in` -> `tests/ptx/out`);
//! - `ptxas`: every kernel of the ui pass cases, the goldens' inputs and the examples assembles;
//! - `mutation`: mutated pass kernels never panic the compiler and their errors point into them;
//! - `compile_time`: what `#[kernel]` costs a build.

// Shared by the suites, loaded once.
#[path = "ptx/support.rs"]
mod ptx_support;
#[path = "ui/support.rs"]
mod ui_support;

mod compile_time;
mod errors;
mod mutation;
#[path = "ptx/main.rs"]
mod ptx;
mod ptxas;
mod ui;
