//! Every shipped kernel (each `ALL_PTX` entry) assembles with `ptxas -arch=sm_90a` without
//! register spills and without wgmma serialization: each is written to fit its warpgroups'
//! register budgets, and a spill in a main loop costs far more than it shows here. ptxas reports
//! a serialization (C7515 and its kin) only as a note, and the GPU does not report it at all: on
//! the H200 it made an attention kernel 18-25% slower. One test per family, so that a family
//! checks alone in seconds before it is timed: `cargo test -p tessel-kernels --test kernels --
//! ptxas::attention`.
//!
//! ptxas is found as the compiler's tests find it (`TESSEL_PTXAS`, `PATH`, the
//! `nvidia-cuda-nvcc-cu12` wheel, a CUDA installation); without one these tests fail, unless
//! `TESSEL_SKIP_PTXAS=1` (and not `TESSEL_REQUIRE_PTXAS=1`).

#[path = "../../compiler-tests/tests/ptx/ptxas_tool.rs"]
mod ptxas_tool;

use ptxas_tool::{assemble_without_spills, file_tag, ptxas_or_skip};
use tessel_kernels::{attention, attention_backward, ceiling, collective, linear, matmul, quantized};

/// Assembles every instance of a family, and fails with every complaint at once.
fn assemble_family(family: &str, kernels: &[(&str, tessel::Ptx)]) {
    let Some(ptxas) = ptxas_or_skip("that the shipped kernels assemble without spills") else { return };
    let mut failures = Vec::new();
    for &(name, ptx) in kernels {
        // `Err` for a failure, a warning, a spill or a wgmma serialization note (`C75xx`).
        if let Err(e) = assemble_without_spills(&ptxas, &format!("shipped-{}", file_tag(name)), &ptx) {
            failures.push(format!("{name}: {e}"));
        }
    }
    println!("ptxas accepted {}/{} {family} kernels", kernels.len() - failures.len(), kernels.len());
    assert!(!kernels.is_empty(), "no {family} kernels listed");
    assert!(failures.is_empty(), "{} kernel(s) failed:\n\n{}", failures.len(), failures.join("\n\n"));
}

#[test]
fn matmul() {
    assemble_family("matmul", matmul::ALL_PTX);
}

#[test]
fn attention() {
    assemble_family("attention", attention::ALL_PTX);
}

#[test]
fn attention_backward() {
    assemble_family("attention_backward", attention_backward::ALL_PTX);
}

#[test]
fn quantized() {
    assemble_family("quantized", quantized::ALL_PTX);
}

#[test]
fn linear() {
    assemble_family("linear", linear::ALL_PTX);
}

#[test]
fn ceiling() {
    assemble_family("ceiling", ceiling::ALL_PTX);
}

#[test]
fn collective() {
    assemble_family("collective", collective::ALL_PTX);
}
