//! The front end's test suite (`tests/ui`, see `tests/ui/README.md`).
//!
//! - `ui`: trybuild compiles every case with rustc: the compile-fail cases must print exactly their
//!   `.stderr` (message, span, help), the pass cases must build.
//! - `cases_through_the_compiler`: the same cases handed to `tessel_compiler::compile` directly, which
//!   is quick and checks what a `.stderr` cannot say by itself: a pass case has no error at all (and
//!   expands without one), and a compile-fail case has exactly one (one rejection per file; the
//!   notes at the calls of a kernel function whose body has the error do not count), except the
//!   cases named `*several-errors*` that show errors reported together and the cases rustc rejects
//!   at a use of a kernel that compiles (`support::REJECTED_AT_A_CALL`), which have none.
//! - `fragments_read_as_written`: the pass kernels with every operand and type in the invisible
//!   group a `macro_rules!` puts around a fragment compile to the same PTX.
//! - `readme_covers_the_catalog`: every row of the error catalog names a case that exists.

use crate::ui_support as support;

use support::{
    case_files, describe, is_call_note, kernels_of, libraries_of, modules_of, FAIL_AREAS, REJECTED_AT_A_CALL,
};

#[test]
fn ui() {
    let t = trybuild::TestCases::new();
    for area in FAIL_AREAS {
        t.compile_fail(format!("tests/ui/{area}/*.rs"));
    }
    t.pass("tests/ui/pass/*.rs");
}

#[test]
fn cases_through_the_compiler() {
    let mut problems = Vec::new();
    let mut pass_kernels = 0;
    for path in case_files("pass") {
        for k in kernels_of(&path) {
            pass_kernels += 1;
            if let Err(e) = tessel_compiler::compile(k.attr.clone(), k.item.clone()) {
                problems.push(format!("{} `{}` is rejected: {:#?}", path.display(), k.name, describe(&e)));
            } else if tessel_compiler::expand(k.attr, k.item).to_string().contains("compile_error") {
                problems.push(format!("{} `{}` passes checking but not the back end", path.display(), k.name));
            }
        }
        for l in libraries_of(&path) {
            if let Err(e) = tessel_compiler::module::library::check(l.attr, l.item) {
                problems.push(format!("{} `{}` is rejected: {:#?}", path.display(), l.name, describe(&e)));
            }
        }
        for m in modules_of(&path) {
            match tessel_compiler::module::compile(m.attr.clone(), m.item.clone()) {
                Err(e) => problems.push(format!("{} `{}` is rejected: {:#?}", path.display(), m.name, describe(&e))),
                Ok(kernels) => {
                    pass_kernels += kernels.len();
                    if tessel_compiler::module::expand(m.attr, m.item).to_string().contains("compile_error") {
                        problems.push(format!("{} `{}` passes checking but not the back end", path.display(), m.name));
                    }
                }
            }
        }
    }
    for area in FAIL_AREAS {
        for path in case_files(area) {
            let several = path.to_string_lossy().contains("several-errors");
            let mut errors: Vec<String> = kernels_of(&path)
                .into_iter()
                .flat_map(|k| tessel_compiler::compile(k.attr, k.item).err().map(|e| describe(&e)).unwrap_or_default())
                .collect();
            for l in libraries_of(&path) {
                errors.extend(
                    tessel_compiler::module::library::check(l.attr, l.item)
                        .err()
                        .map(|e| describe(&e))
                        .unwrap_or_default(),
                );
            }
            for m in modules_of(&path) {
                let module_errors = tessel_compiler::module::compile(m.attr, m.item).err().map(|e| describe(&e));
                errors.extend(module_errors.unwrap_or_default().into_iter().filter(|e| !is_call_note(e)));
            }
            println!("{}: {errors:?}", path.strip_prefix(support::root()).unwrap_or(&path).display());
            let case = path.strip_prefix(support::root().join("tests/ui")).unwrap_or(&path);
            let at_a_call = REJECTED_AT_A_CALL.iter().any(|c| case == std::path::Path::new(c));
            let ok = if several { errors.len() >= 2 } else { errors.len() == usize::from(!at_a_call) };
            if !ok {
                problems.push(format!("{} has {} errors: {errors:#?}", path.display(), errors.len()));
            }
        }
    }
    assert!(problems.is_empty(), "{}", problems.join("\n"));
    assert!(pass_kernels >= 20, "only {pass_kernels} pass kernels");
    println!("{pass_kernels} pass kernels accepted");
}

/// A `macro_rules!` hands `#[kernel]` the fragments it substitutes (`$e:expr`, `$t:ty`) in
/// invisible groups: every pass kernel with every operand, statement and type in one (nested) is
/// accepted and compiles to the same PTX, so each is read through its group and keeps its
/// precedence.
#[test]
fn fragments_read_as_written() {
    let mut problems = Vec::new();
    let mut kernels = 0;
    for path in case_files("pass") {
        for k in kernels_of(&path) {
            let ptx = |k: &support::Kernel| {
                tessel_compiler::compile(k.attr.clone(), k.item.clone())
                    .map_err(|e| describe(&e))
                    .map(|c| c.ptx().map_err(|e| describe(&e)))
            };
            let Some(grouped) = support::as_fragments(&k) else {
                problems.push(format!("{} `{}` does not parse", path.display(), k.name));
                continue;
            };
            kernels += 1;
            match (ptx(&k), ptx(&grouped)) {
                (Ok(Ok(plain)), Ok(Ok(fragments))) if plain == fragments => {}
                (Ok(Ok(_)), Ok(Ok(_))) => problems.push(format!("{} `{}`: other PTX", path.display(), k.name)),
                (_, other) => problems.push(format!("{} `{}` in groups: {other:?}", path.display(), k.name)),
            }
        }
    }
    assert!(problems.is_empty(), "{}", problems.join("\n"));
    assert!(kernels >= 20, "only {kernels} pass kernels");
}

/// The rows of the error catalog (`tests/ui/README.md`), a row with several forms once per form (`C6'` is the second
/// form of C6), and the SEED, A4, B4 and E-rows that two constructs reach.
const CATALOG_ROWS: &[&str] = &[
    "SEED 000",
    "SEED 001",
    "SEED 002",
    "SEED 003",
    "SEED 004",
    "SEED 004'",
    "A3",
    "A4",
    "A4'",
    "A5",
    "A6",
    "A7",
    "A8",
    "A9",
    "B2",
    "B3",
    "B4",
    "B4'",
    "C2",
    "C2'",
    "C3",
    "C4",
    "C5",
    "C6",
    "C6'",
    "C7",
    "D2",
    "D3",
    "D4",
    "D5",
    "D6 M",
    "D6 N",
    "D6 K",
    "D7",
    "D8 acc",
    "D8 A",
    "D8 B",
    "E1",
    "E2",
    "E3",
    "E3'",
    "E4",
    "E5",
    "E5'",
    "E6",
    "E7",
    "E8 M",
    "E8 N",
    "E8 N int",
    "E8 K",
    "E9",
    "E9'",
    "E10",
    "E11",
    "E11'",
    "E12",
    "E12'",
    "E13",
    "E14",
    "E14'",
    "E15",
    "E15'",
    "E16",
    "E16'",
    "E17",
];

#[test]
fn readme_covers_the_catalog() {
    let readme = std::fs::read_to_string(support::root().join("tests/ui/README.md")).expect("tests/ui/README.md");
    let mut missing = Vec::new();
    for row in CATALOG_ROWS {
        let line = readme.lines().find(|l| l.starts_with(&format!("| {row} |")));
        let file = line.and_then(|l| l.split('|').nth(2)).map(|f| f.trim().trim_matches('`'));
        match file {
            Some(f) if support::root().join("tests/ui").join(f).is_file() => {}
            _ => missing.push(*row),
        }
    }
    assert!(missing.is_empty(), "catalog rows without a case in tests/ui/README.md: {missing:?}");
    let unlisted: Vec<String> = FAIL_AREAS
        .iter()
        .flat_map(|area| case_files(area).into_iter().map(move |p| (area, p)))
        .map(|(area, p)| format!("{area}/{}", p.file_name().unwrap_or_default().to_string_lossy()))
        .filter(|case| !readme.contains(&format!("`{case}`")) && !case.contains("several-errors"))
        .collect();
    assert!(unlisted.is_empty(), "compile-fail cases missing from tests/ui/README.md: {unlisted:?}");
}
