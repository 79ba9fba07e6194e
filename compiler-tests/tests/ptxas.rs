//! ptxas validation: every kernel of the pass cases (`tests/ui/pass`), the golden PTX inputs
//! (`tests/ptx/in`) and the facade's examples (`../examples`), every instance of a generic one, is
//! compiled to PTX and assembled with `ptxas -arch=sm_90a`, which must exit 0 without warnings and
//! without wgmma serialization notes (`C75xx`). The kernels of a `#[kernels]` module are found too,
//! and compiled with their module's kernel functions.
//!
//! ptxas comes from `TESSEL_PTXAS`, `PATH`, the `nvidia-cuda-nvcc-cu12` wheel (`python3 -m pip
//! install nvidia-cuda-nvcc-cu12==12.9.86`: found through `python3`) or a CUDA installation.
//! Without one these tests fail, saying how to install it: a pass would claim PTX was checked.
//! `TESSEL_SKIP_PTXAS=1` makes them pass after saying loudly that they skipped, unless
//! `TESSEL_REQUIRE_PTXAS=1` (CI), which keeps a missing ptxas a failure.

use crate::ptx_support as support;

use std::path::Path;
use support::{assemble, file_tag, kernels_in, ptxas_or_skip, rust_files, KernelSource, EXAMPLES};

/// Compiles one kernel and assembles its PTX; `Err` says which kernel and why.
fn check(ptxas: &Path, k: &KernelSource) -> Result<(), String> {
    let stem = k.file.file_stem().map(|s| s.to_string_lossy().into_owned()).unwrap_or_default();
    let tag = file_tag(&k.name);
    let result = k.ptx().and_then(|ptx| assemble(ptxas, &format!("{stem}-{tag}"), &ptx));
    result.map(|_| ()).map_err(|e| format!("{}: {e}", k.label()))
}

#[test]
fn every_kernel_assembles() {
    let Some(ptxas) = ptxas_or_skip("that every kernel's PTX assembles") else { return };
    let files: Vec<_> = ["tests/ui/pass", "tests/ptx/in", EXAMPLES].iter().flat_map(|d| rust_files(d)).collect();
    // ptxas runs are independent: spread the files over the machine's cores (token streams are not
    // `Send`, so each worker reads its own files).
    let threads = std::thread::available_parallelism().map_or(1, |n| n.get());
    let results: Vec<(usize, Vec<String>)> = std::thread::scope(|s| {
        let shards: Vec<_> = (0..threads)
            .map(|t| {
                let (files, ptxas) = (&files, &ptxas);
                s.spawn(move || {
                    let kernels: Vec<_> = files.iter().skip(t).step_by(threads).flat_map(|f| kernels_in(f)).collect();
                    (kernels.len(), kernels.iter().filter_map(|k| check(ptxas, k).err()).collect())
                })
            })
            .collect();
        shards.into_iter().map(|h| h.join().unwrap_or_else(|_| (1, vec!["a ptxas worker panicked".into()]))).collect()
    });
    let total: usize = results.iter().map(|r| r.0).sum();
    let failures: Vec<String> = results.into_iter().flat_map(|r| r.1).collect();
    println!("ptxas accepted {}/{total} kernels", total - failures.len());
    assert!(total > 0, "no kernels found");
    assert!(failures.is_empty(), "{} kernel(s) failed:\n\n{}", failures.len(), failures.join("\n\n"));
}
