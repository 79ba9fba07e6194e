//! Golden PTX: each kernel file `tests/ptx/in/<name>.rs` compiles to `tests/ptx/out/<name>.ptx`
//! (all its kernels, in order), compared exactly.
//! `TESSEL_BLESS=1 cargo test -p tessel-compiler-tests --test compiler ptx::` rewrites the outputs; review the
//! diff before committing it.
//!
//! Each input also states what its PTX must contain, as `// expect: <text>` lines, checked whether
//! or not the golden file matches, so a blessed regression in a construct still fails.

use crate::ptx_support as support;

use std::path::Path;
use support::{kernels_in, root, rust_files, EXAMPLES};

/// The PTX of every kernel of a file, separated by a blank line.
fn file_ptx(path: &Path) -> Result<String, String> {
    let kernels = kernels_in(path);
    if kernels.is_empty() {
        return Err(format!("{} has no #[kernel] function", path.display()));
    }
    let parts: Result<Vec<String>, String> =
        kernels.iter().map(|k| k.ptx().map_err(|e| format!("{}: {e}", k.label()))).collect();
    Ok(parts?.join("\n"))
}

/// The `// expect: ..` lines of a kernel file.
fn expectations(path: &Path) -> Vec<String> {
    let src = std::fs::read_to_string(path).unwrap_or_default();
    src.lines().filter_map(|l| l.trim().strip_prefix("// expect:")).map(|s| s.trim().to_string()).collect()
}

/// Where two texts first differ, as "line N: expected .. / found ..".
fn first_difference(expected: &str, found: &str) -> String {
    let (mut e, mut f) = (expected.lines(), found.lines());
    for n in 1.. {
        match (e.next(), f.next()) {
            (Some(a), Some(b)) if a == b => continue,
            (None, None) => break,
            (a, b) => {
                return format!("line {n}:\n  expected: {}\n  found:    {}", a.unwrap_or("<end>"), b.unwrap_or("<end>"))
            }
        }
    }
    "no difference".into()
}

#[test]
fn golden_ptx() {
    let bless = std::env::var("TESSEL_BLESS").is_ok_and(|v| v == "1");
    let inputs = rust_files("tests/ptx/in");
    assert!(!inputs.is_empty(), "no inputs in tests/ptx/in");
    let mut failures = Vec::new();
    for input in &inputs {
        let stem = input.file_stem().map(|s| s.to_string_lossy().into_owned()).unwrap_or_default();
        let out = root().join("tests/ptx/out").join(format!("{stem}.ptx"));
        let ptx = match file_ptx(input) {
            Ok(p) => p,
            Err(e) => {
                failures.push(e);
                continue;
            }
        };
        for want in expectations(input) {
            if !ptx.contains(&want) {
                failures.push(format!("{stem}: the PTX does not contain `{want}`"));
            }
        }
        if bless {
            std::fs::write(&out, &ptx).unwrap_or_else(|e| panic!("cannot write {}: {e}", out.display()));
            continue;
        }
        match std::fs::read_to_string(&out) {
            Ok(golden) if golden == ptx => {}
            Ok(golden) => failures.push(format!(
                "{stem}: the PTX differs from {} at {}\n  (if the change is intended: TESSEL_BLESS=1 cargo test -p tessel-compiler-tests --test compiler ptx::)",
                out.display(),
                first_difference(&golden, &ptx)
            )),
            Err(_) => failures.push(format!("{stem}: no {} yet (TESSEL_BLESS=1 cargo test -p tessel-compiler-tests --test compiler ptx::)", out.display())),
        }
    }
    assert!(failures.is_empty(), "{} golden PTX failure(s):\n\n{}", failures.len(), failures.join("\n\n"));
}

/// Every input declares what it checks, so a new golden file cannot silently assert nothing.
#[test]
fn every_input_states_expectations() {
    for input in rust_files("tests/ptx/in") {
        assert!(!expectations(&input).is_empty(), "{} has no `// expect:` line", input.display());
    }
}

/// Scratch shared memory: per warpgroup, the largest array a `to_layout` moves or the column partials
/// of a reduction (4 warps x N x 4 bytes), after the program's allocations rounded up to 1024.
#[test]
fn dynamic_shared_memory_covers_scratch() {
    let sizes = |stem: &str| {
        let k = &kernels_in(&root().join(format!("tests/ptx/in/{stem}.rs")))[0];
        let c = k.compiled().unwrap_or_else(|e| panic!("{stem}: {e}"));
        (c.facts.smem_bytes, c.facts.scratch_bytes, c.facts.dynamic_smem_bytes)
    };
    let slack = u64::from(tessel_compiler::typeck::scratch::SMEM_SLACK);
    // [64, 16] f32 arrays through scratch; the column sum needs only 4 x 16 x 4 = 256 bytes.
    assert_eq!(sizes("relayout"), (0, 64 * 16 * 4, 64 * 16 * 4 + slack));
    // Column reductions of [.., 16] arrays (f32, i8, i32 all reduce in 4 bytes).
    assert_eq!(sizes("reduce_cols"), (0, 256, 256 + slack));
    // No scratch: the program's two 8 KiB buffers and the slack.
    assert_eq!(sizes("smem_swizzle"), (2 * 8192, 0, 2 * 8192 + slack));
}

/// With shared buffers and several warpgroups: scratch starts after the buffers (rounded up to 1024)
/// and each warpgroup has its own.
#[test]
fn scratch_follows_the_buffers_once_per_warpgroup() {
    let src = r#"
        #[kernel(grid = (M / 64), warpgroups = 2, warpgroup_axis = wg)]
        fn two(x: Gmem<f32, M, 40>, y: GmemMut<f32, M, 40>) {
            let i = program_id(0);
            run_scoped(collective_axes = [wg], |buf: Smem<f32, 10, 40>| {
                buf.store(x.tile([i, 0], [10, 40]).load(Layout::Strided));
                let v = x.tile([i, 0], [64, 40]).load(Layout::Strided).to_layout(Layout::Wgmma);
                y.tile([i, 0], [64, 40]).store(v.to_layout(Layout::Strided));
            });
        }
    "#;
    let k = &support::kernels_in_source(src, Path::new("inline"))[0];
    let c = k.compiled().unwrap_or_else(|e| panic!("{e}"));
    // [64, 40] f32 = 10240 bytes (a multiple of 128); the 1600-byte buffer rounds up to 2048.
    assert_eq!(c.facts.smem_bytes, 1600);
    assert_eq!(c.facts.scratch_bytes, 10240);
    assert_eq!(c.facts.dynamic_smem_bytes, 2048 + 2 * 10240 + 1024);
    let ptx = k.ptx().unwrap_or_else(|e| panic!("{e}"));
    assert!(ptx.contains(", 10240, ") && ptx.contains(", 2048;"), "scratch address: wg * 10240 + base + 2048");
}

/// Every kernel's program reads back from the bytes the macro embeds exactly as it was written:
/// what the interpreter runs is what the PTX was written from.
#[test]
fn every_program_survives_its_encoding() {
    let files: Vec<_> = ["tests/ui/pass", "tests/ptx/in", EXAMPLES].iter().flat_map(|d| rust_files(d)).collect();
    let mut count = 0;
    for k in files.iter().flat_map(|f| kernels_in(f)) {
        let compiled = k.compiled().unwrap_or_else(|e| panic!("{}: {e}", k.label()));
        let program = compiled.program().unwrap_or_else(|e| panic!("{}: {e}", k.label()));
        let bytes = tessel_ir::codec::to_bytes(&program);
        let back: tessel_ir::Program =
            tessel_ir::codec::from_bytes(&bytes).unwrap_or_else(|e| panic!("{}: {e}", k.label()));
        assert!(back == program, "{}: the program read back differs from the one written", k.label());
        count += 1;
    }
    assert!(count > 50, "only {count} kernels found");
}

/// A generic kernel is one source per instance, named like it, each with the PTX of its own values
/// (the harness that `tests/ptxas.rs` assembles every kernel with).
#[test]
fn a_generic_kernel_is_a_source_per_instance() {
    let kernels = kernels_in(&root().join("tests/ptx/in/generic_wgmma.rs"));
    let names: Vec<&str> = kernels.iter().map(|k| k.name.as_str()).collect();
    assert_eq!(names, ["generic_wgmma::<bf16, 64>", "generic_wgmma::<f16, 128>"]);
    let ptx: Vec<String> = kernels.iter().map(|k| k.ptx().unwrap_or_else(|e| panic!("{}: {e}", k.label()))).collect();
    assert!(ptx[0].contains("m64n64k16.f32.bf16.bf16") && !ptx[0].contains(".f16.f16"));
    assert!(ptx[1].contains("m64n128k16.f32.f16.f16") && !ptx[1].contains(".bf16.bf16"));
}
