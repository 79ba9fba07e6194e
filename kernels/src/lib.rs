//! tessel's shipped kernels, written in tessel: each kernel is expanded (checked, compiled to PTX)
//! once, when this crate builds, and the examples, tests and benchmarks link it.
//!
//! - [`matmul`](mod@matmul): C = A @ B for bf16 and f16 (persistent, warp-specialized; wide, overlapped,
//!   split-K and skinny variants, chosen by [`waves`]);
//! - [`quantized`]: the fp8 and int8 GEMMs with per-row and per-column scales;
//! - [`linear`]: Y = act(X W^T + b), the GEMM with a fused bias and activation;
//! - [`attention`]: the flash attention forward pass (multi-head, grouped-query and multi-query;
//!   for inference, and for training with each row's log-sum-exp);
//! - [`attention_backward`]: its backward pass (dQ, dK, dV; grouped-query heads);
//! - [`ceiling`]: the wide GEMM's wgmmas alone, an upper bound the benchmark times;
//! - [`collective`]: all-gather + GEMM and GEMM + reduce-scatter on a group of 1, 2, 4 or 8 GPUs,
//!   the communication fused into the GEMM (tensor-parallel layers);
//! - [`gemm_fns`]: the kernel functions the GEMM families share (the tile order, the split-K
//!   exchange), as libraries that your own kernels may use too;
//! - [`waves`]: the tile planner; [`workspace`]: the split-K kernels' memory.

pub mod gemm_fns;
pub mod waves;
pub mod workspace;
// Declared before the families whose dispatchers its macro writes.
#[macro_use]
mod dispatch;

pub mod attention;
pub mod attention_backward;
pub mod ceiling;
pub mod collective;
pub mod linear;
pub mod matmul;
pub mod quantized;
