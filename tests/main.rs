//! The facade's tests, one test binary (tessel linked once, not once per suite): filter by module,
//! e.g. `cargo test --test tessel gpu_ops::`. The GPU tests are `#[ignore]`d (run them with
//! `--ignored` on a Hopper GPU). `interp_wait` is a binary of its own: it sets an environment
//! variable that every launch in its process reads.
//!
//! - `interpreter`, `interp`: the CPU interpreter, its errors and its race detector;
//! - `generic`, `kernel_fns`: generic kernels and `#[kernels]` modules;
//! - `launch_errors`, `interop`: what a launch checks, and cudarc interoperation;
//! - `group`: device groups and NCCL where no GPU is needed (clear errors);
//! - `gpu_ops`, `gpu_gemm`, `gpu_atomics`: the GPU against the interpreter;
//! - `gpu_group`: symmetric tensors and NCCL collectives on 1, 2, 4 and 8 GPUs;
//! - `devices`: kernels of several devices (`devices = W`), on simulated devices and on GPUs.

// Shared by the suites, loaded once.
mod accumulating;
mod common;
mod kernels;
mod semaphores;

mod devices;
mod generic;
mod gpu_atomics;
mod gpu_gemm;
mod gpu_group;
mod gpu_ops;
mod group;
mod interop;
mod interp;
#[path = "interpreter/main.rs"]
mod interpreter;
mod kernel_fns;
mod launch_errors;
