//! The shipped kernels' tests, one test binary (the kernels linked once, not once per suite):
//! filter by module, e.g. `cargo test -p tessel-kernels --test kernels attention_backward::`. The
//! GPU tests are `#[ignore]`d (run them with `--ignored` on a Hopper GPU).
//!
//! - `attention`, `attention_backward`: the flash attention passes against an f64 reference;
//! - `collective`: the all-gather and reduce-scatter GEMMs on 1, 2 and 4 simulated devices, their
//!   dispatchers, and (ignored) on a group of GPUs;
//! - `matmul_dispatch`, `quantized`, `linear`: the GEMM families and their dispatchers;
//! - `gemm_fns`: the GEMMs' kernel-function libraries in a kernel of another crate;
//! - `ptxas`: every shipped kernel assembles for sm_90a without register spills.

// Shared by the suites, loaded once.
#[path = "../examples/support/attention_grad_ref.rs"]
#[allow(dead_code)]
mod attention_grad_ref;
#[path = "../examples/support/attention_ref.rs"]
#[allow(dead_code)]
mod attention_ref;
#[path = "../../tests/common/mod.rs"]
mod common;

mod attention;
mod attention_backward;
mod collective;
mod gemm_fns;
mod linear;
mod matmul_dispatch;
mod ptxas;
mod quantized;
