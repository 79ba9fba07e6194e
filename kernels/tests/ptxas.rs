//! Every shipped kernel (each `ALL_PTX` entry) assembles with `ptxas -arch=sm_90a` without
//! register spills and without wgmma serialization: each is written to fit its warpgroups'
//! register budgets, and a spill in a main loop costs far more than it shows here.
//!
//! ptxas is found as the compiler's tests find it (`TESSEL_PTXAS`, `PATH`, the
//! `nvidia-cuda-nvcc-cu12` wheel, a CUDA installation); without one this test fails, unless
//! `TESSEL_SKIP_PTXAS=1` (and not `TESSEL_REQUIRE_PTXAS=1`).

#[path = "../../compiler-tests/tests/ptx/ptxas_tool.rs"]
mod ptxas_tool;

use ptxas_tool::{assemble_without_spills, file_tag, ptxas_or_skip};
use tessel_kernels::{attention, attention_backward, ceiling, collective, linear, matmul, quantized};

#[test]
fn shipped_kernels_assemble_without_spills() {
    let Some(ptxas) = ptxas_or_skip("that the shipped kernels assemble without spills") else { return };
    let kernels = [
        matmul::ALL_PTX,
        attention::ALL_PTX,
        attention_backward::ALL_PTX,
        quantized::ALL_PTX,
        linear::ALL_PTX,
        ceiling::ALL_PTX,
        collective::ALL_PTX,
    ];
    let mut failures = Vec::new();
    let mut total = 0;
    for &(name, ptx) in kernels.iter().flat_map(|list| list.iter()) {
        total += 1;
        // `Err` for a failure, a warning, a spill or a wgmma serialization note (`C75xx`).
        if let Err(e) = assemble_without_spills(&ptxas, &format!("shipped-{}", file_tag(name)), &ptx) {
            failures.push(format!("{name}: {e}"));
        }
    }
    println!("ptxas accepted {}/{total} shipped kernels", total - failures.len());
    assert!(total > 0, "no kernels listed");
    assert!(failures.is_empty(), "{} kernel(s) failed:\n\n{}", failures.len(), failures.join("\n\n"));
}
