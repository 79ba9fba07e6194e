//! Finding and running `ptxas` (std only: shared by this package's PTX tests and by
//! `tessel-kernels`' `tests/ptxas.rs`, which includes this file by path).

#![allow(dead_code)]

use std::path::{Path, PathBuf};
use std::process::Command;

/// The ptxas wheel CI installs (it needs no CUDA installation), for the messages.
pub const PTXAS_WHEEL: &str = "nvidia-cuda-nvcc-cu12==12.9.86";

/// `ptxas`: `TESSEL_PTXAS` if set, else the first `ptxas` on `PATH`, else the one of the
/// `nvidia-cuda-nvcc-cu12` wheel if `python3` can import it, else a CUDA installation's
/// (`CUDA_HOME`, `CUDA_PATH`, `/usr/local/cuda`).
pub fn find_ptxas() -> Option<PathBuf> {
    if let Some(p) = std::env::var_os("TESSEL_PTXAS") {
        return Some(PathBuf::from(p));
    }
    let on_path = std::env::var_os("PATH")
        .and_then(|path| std::env::split_paths(&path).map(|d| d.join("ptxas")).find(|p| p.is_file()));
    let cuda = || {
        let homes = ["CUDA_HOME", "CUDA_PATH"].into_iter().filter_map(std::env::var_os).map(PathBuf::from);
        homes.chain([PathBuf::from("/usr/local/cuda")]).map(|h| h.join("bin/ptxas")).find(|p| p.is_file())
    };
    on_path.or_else(wheel_ptxas).or_else(cuda)
}

/// The `ptxas` of the `nvidia-cuda-nvcc-cu12` wheel, if `python3` has it installed.
fn wheel_ptxas() -> Option<PathBuf> {
    let script = "import os, nvidia.cuda_nvcc as n; print(os.path.join(list(n.__path__)[0], 'bin', 'ptxas'))";
    let out = std::process::Command::new("python3").args(["-c", script]).output().ok()?;
    let path = PathBuf::from(String::from_utf8(out.stdout).ok()?.trim());
    (out.status.success() && path.is_file()).then_some(path)
}

/// `ptxas` for a test that assembles PTX (`what` it checks). Without one the test fails with a
/// message saying how to get it, since a pass would say that PTX was checked when nothing was;
/// `TESSEL_SKIP_PTXAS=1` makes it pass after saying loudly that it skipped (`None`), unless
/// `TESSEL_REQUIRE_PTXAS=1` (CI) insists.
pub fn ptxas_or_skip(what: &str) -> Option<PathBuf> {
    if let Some(ptxas) = find_ptxas() {
        return Some(ptxas);
    }
    let flag = |name: &str| std::env::var(name).is_ok_and(|v| v == "1");
    if flag("TESSEL_SKIP_PTXAS") && !flag("TESSEL_REQUIRE_PTXAS") {
        eprintln!("\n!!!!! SKIPPED ({what}): no ptxas, and TESSEL_SKIP_PTXAS=1 !!!!!\n");
        return None;
    }
    panic!(
        "no ptxas: this test checks {what} with `ptxas -arch=sm_90a`, and cannot check anything without it.\n\
         Install it (no CUDA installation or GPU needed): `python3 -m pip install {PTXAS_WHEEL}`, which this \
         test finds by itself; or set TESSEL_PTXAS=/path/to/ptxas, or put a CUDA 12 ptxas on PATH.\n\
         To run the other tests without it: `TESSEL_SKIP_PTXAS=1 cargo test`{}.",
        if flag("TESSEL_REQUIRE_PTXAS") { " (not with TESSEL_REQUIRE_PTXAS=1, as CI sets)" } else { "" }
    )
}

/// Assembles `ptx` for sm_90a. `Ok(log)` when ptxas exits 0 and reports no wgmma serialization
/// (`C75xx`, checked on the H200) and no warning; otherwise `Err` with what it said.
pub fn assemble(ptxas: &Path, tag: &str, ptx: &str) -> Result<String, String> {
    run_ptxas(ptxas, tag, ptx, false)
}

/// [`assemble`] with `-v`, and an `Err` if ptxas spilled registers to local memory: its log
/// (registers, stack, spills) on success.
pub fn assemble_without_spills(ptxas: &Path, tag: &str, ptx: &str) -> Result<String, String> {
    let log = run_ptxas(ptxas, tag, ptx, true)?;
    // `-v` prints, per function, "N bytes stack frame, N bytes spill stores, N bytes spill loads".
    let spill_stores = |line: &str| {
        let before = line.split(" bytes spill stores").next().filter(|_| line.contains(" bytes spill stores"))?;
        before.rsplit([' ', ',']).next()?.parse::<u64>().ok()
    };
    let counts: Vec<u64> = log.lines().filter_map(spill_stores).collect();
    match counts.iter().sum::<u64>() {
        // A log without the line would pass by saying nothing: that is an error too.
        _ if counts.is_empty() => Err(format!("ptxas -v printed no spill counts for {tag}:\n{log}")),
        0 => Ok(log),
        bytes => Err(format!("ptxas spilled {bytes} bytes of registers in {tag}:\n{log}")),
    }
}

fn run_ptxas(ptxas: &Path, tag: &str, ptx: &str, verbose: bool) -> Result<String, String> {
    let dir = std::env::temp_dir().join(format!("tessel-ptxas-{}", std::process::id()));
    std::fs::create_dir_all(&dir).map_err(|e| e.to_string())?;
    let input = dir.join(format!("{tag}.ptx"));
    std::fs::write(&input, ptx).map_err(|e| e.to_string())?;
    let output = Command::new(ptxas)
        .arg("-arch=sm_90a")
        .args(verbose.then_some("-v"))
        .arg(&input)
        .arg("-o")
        .arg(dir.join(format!("{tag}.cubin")))
        .output()
        .map_err(|e| format!("cannot run {}: {e}", ptxas.display()))?;
    let log = format!("{}{}", String::from_utf8_lossy(&output.stdout), String::from_utf8_lossy(&output.stderr));
    if !output.status.success() {
        return Err(format!("ptxas failed ({}) on {}:\n{log}", output.status, input.display()));
    }
    if log.contains("C75") || log.to_lowercase().contains("warning") {
        return Err(format!("ptxas accepted {} with complaints:\n{log}", input.display()));
    }
    Ok(log)
}

/// An instance's name (`matmul::<bf16, 256>`) as a file name: `matmul-bf16-256`.
pub fn file_tag(name: &str) -> String {
    name.split(|c: char| !c.is_alphanumeric() && c != '_').filter(|s| !s.is_empty()).collect::<Vec<_>>().join("-")
}
