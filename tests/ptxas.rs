//! ptxas validation: every kernel of the pass cases (`tests/ui/pass`), the golden PTX inputs
//! (`tests/ptx/in`) and the examples is compiled to PTX and assembled with `ptxas -arch=sm_90a`,
//! which must exit 0 without warnings and without wgmma serialization notes (`C75xx`).
//!
//! ptxas comes from `TESSEL_PTXAS` or `PATH` (the `nvidia-cuda-nvcc-cu12` wheel ships it in
//! `nvidia/cuda_nvcc/bin`). Without it the test says loudly that it skipped, unless
//! `TESSEL_REQUIRE_PTXAS=1`, which makes that a failure.

#[path = "ptx/support.rs"]
mod support;

use support::{assemble, find_ptxas, kernels_in, ptxas_required, rust_files};

#[test]
fn every_kernel_assembles() {
    let Some(ptxas) = find_ptxas() else {
        assert!(!ptxas_required(), "TESSEL_REQUIRE_PTXAS=1 but no ptxas: set TESSEL_PTXAS or put ptxas on PATH");
        eprintln!("\n!!!!! SKIPPED ptxas validation: no ptxas (set TESSEL_PTXAS or put ptxas on PATH) !!!!!\n");
        return;
    };
    let files: Vec<_> = ["tests/ui/pass", "tests/ptx/in", "examples"].iter().flat_map(|d| rust_files(d)).collect();
    let mut failures = Vec::new();
    let mut total = 0;
    for file in &files {
        let stem = file.file_stem().map(|s| s.to_string_lossy().into_owned()).unwrap_or_default();
        for k in kernels_in(file) {
            total += 1;
            let result = k.ptx().and_then(|ptx| assemble(&ptxas, &format!("{stem}-{}", k.name), &ptx));
            if let Err(e) = result {
                failures.push(format!("{}: {e}", k.label()));
            }
        }
    }
    println!("ptxas accepted {}/{total} kernels", total - failures.len());
    assert!(total > 0, "no kernels found");
    assert!(failures.is_empty(), "{} kernel(s) failed:\n\n{}", failures.len(), failures.join("\n\n"));
}
