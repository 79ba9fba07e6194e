//! Golden PTX: each kernel file `tests/ptx/in/<name>.rs` compiles to `tests/ptx/out/<name>.ptx`
//! (all its kernels, in order), compared exactly. `TESSEL_BLESS=1 cargo test --test ptx` rewrites
//! the outputs; review the diff before committing it.
//!
//! Each input also states what its PTX must contain, as `// expect: <text>` lines, checked whether
//! or not the golden file matches, so a blessed regression in a construct still fails.

mod support;

use std::path::Path;
use support::{kernels_in, root, rust_files};

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
            (a, b) => return format!("line {n}:\n  expected: {}\n  found:    {}", a.unwrap_or("<end>"), b.unwrap_or("<end>")),
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
                "{stem}: the PTX differs from {} at {}\n  (if the change is intended: TESSEL_BLESS=1 cargo test --test ptx)",
                out.display(),
                first_difference(&golden, &ptx)
            )),
            Err(_) => failures.push(format!("{stem}: no {} yet (TESSEL_BLESS=1 cargo test --test ptx)", out.display())),
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
