//! The error index, `docs/errors.md` (of the repository), against the compiler's table of codes
//! (`tessel_compiler::codes`):
//!
//! - `every_code_has_an_entry`: the index has one entry (`## T0001: ..`) per code of the table and
//!   per retired code, and no other, in the table's order (by area);
//! - `each_wrong_kernel_fails_with_its_code`: the kernels under an entry's `Wrong:` are rejected,
//!   and every error they get has the entry's code (the notes at the calls of a kernel function,
//!   `InCall`, aside: they follow the error in its body);
//! - `each_right_kernel_compiles`: the kernels under its `Right:` are accepted and expand without
//!   an error.
//!
//! The kernels go to `tessel_compiler` directly, as `tests/ui.rs` hands it the ui cases (read by
//! `tests/ui/support.rs`): `#[kernel]` functions, `#[kernels]` modules and `#[kernel_fns]`
//! libraries.

use crate::ui_support as support;

use std::collections::BTreeSet;
use tessel_compiler::codes::Code;

/// One entry of the index.
struct Entry {
    number: u16,
    /// The entry's text, heading included.
    text: String,
    wrong: Option<String>,
    right: Option<String>,
}

/// The codes whose entries have no kernels: an internal error is a bug, which no kernel is written
/// to cause.
const WITHOUT_EXAMPLES: &[Code] = &[Code::Internal];

/// The code rustc reports at a call (of an instance a generic kernel does not list): its wrong
/// kernel compiles, and its expansion carries the message rustc gives at the call.
const AT_A_CALL: Code = Code::UndeclaredInstance;

fn index() -> Vec<Entry> {
    let path = support::root().join("../docs/errors.md");
    let text = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    let mut entries = Vec::new();
    for section in text.split("\n## ").skip(1) {
        let number = section.strip_prefix('T').and_then(|s| s.get(..4)).and_then(|n| n.parse().ok());
        let number = number.unwrap_or_else(|| panic!("a heading that is no code: `## {}`", first_line(section)));
        let text = format!("## {section}");
        entries.push(Entry { number, wrong: example(&text, "Wrong:"), right: example(&text, "Right:"), text });
    }
    entries
}

fn first_line(s: &str) -> &str {
    s.lines().next().unwrap_or_default()
}

/// The ```` ```rust ```` block after the line `label` of an entry.
fn example(entry: &str, label: &str) -> Option<String> {
    let after = entry.split_once(&format!("\n{label}\n"))?.1;
    let body = after.trim_start().strip_prefix("```rust\n")?;
    Some(body.split_once("\n```").map_or(body, |(code, _)| code).to_string())
}

fn code_of(number: u16) -> Option<Code> {
    Code::ALL.iter().copied().find(|c| c.number() == number)
}

#[test]
fn every_code_has_an_entry() {
    let entries = index();
    let documented: Vec<u16> = entries.iter().map(|e| e.number).collect();
    let in_use: Vec<u16> = Code::ALL.iter().map(|c| c.number()).collect();
    let expected: Vec<u16> = in_use.iter().chain(Code::RETIRED).copied().collect();
    let missing: Vec<String> =
        expected.iter().filter(|n| !documented.contains(n)).map(|n| format!("T{n:04}")).collect();
    let unknown: Vec<String> =
        documented.iter().filter(|n| !expected.contains(n)).map(|n| format!("T{n:04}")).collect();
    assert!(missing.is_empty(), "codes without an entry in docs/errors.md: {missing:?}");
    assert!(unknown.is_empty(), "entries in docs/errors.md for no code of the compiler: {unknown:?}");
    assert_eq!(documented.len(), expected.len(), "docs/errors.md has an entry twice");
    let ordered: Vec<u16> = documented.iter().copied().filter(|n| in_use.contains(n)).collect();
    assert_eq!(ordered, in_use, "docs/errors.md lists the codes in the order of the compiler's table (by area)");
    for entry in &entries {
        let retired = Code::RETIRED.contains(&entry.number);
        let needs_examples = code_of(entry.number).is_some_and(|c| !WITHOUT_EXAMPLES.contains(&c));
        if retired {
            assert!(entry.text.contains("Retired"), "T{:04} is retired and its entry does not say so", entry.number);
        } else if needs_examples {
            assert!(
                entry.wrong.is_some() && entry.right.is_some(),
                "{} has no Wrong: or Right: kernel",
                first_line(&entry.text)
            );
        }
    }
}

/// The codes of every error the kernels and modules of `src` get, as `(code, first line)`.
fn errors_of(src: &str) -> Result<Vec<(Option<u16>, String)>, String> {
    let kernels = support::kernels_in(src).map_err(|e| format!("does not parse: {e}"))?;
    let modules = support::modules_in(src).map_err(|e| format!("does not parse: {e}"))?;
    let libraries = support::libraries_in(src).map_err(|e| format!("does not parse: {e}"))?;
    if kernels.is_empty() && modules.is_empty() && libraries.is_empty() {
        return Err("has no #[kernel], no #[kernels] module and no #[kernel_fns] library".into());
    }
    let mut errors: Vec<syn::Error> = Vec::new();
    for l in libraries {
        errors.extend(tessel_compiler::module::library::check(l.attr, l.item).err());
    }
    for k in kernels {
        errors.extend(tessel_compiler::compile(k.attr, k.item).err());
    }
    for m in modules {
        errors.extend(tessel_compiler::module::compile(m.attr, m.item).err());
    }
    Ok(errors
        .into_iter()
        .flatten()
        .map(|e| (code_in(&e.to_string()), first_line(&e.to_string()).to_string()))
        .collect())
}

/// The number of the `[Txxxx]` a message starts with.
fn code_in(message: &str) -> Option<u16> {
    message.strip_prefix("[T")?.get(..4)?.parse().ok().filter(|_| message.get(6..8) == Some("] "))
}

#[test]
fn each_wrong_kernel_fails_with_its_code() {
    let mut problems = Vec::new();
    let mut checked = 0;
    for entry in index() {
        let (Some(code), Some(wrong)) = (code_of(entry.number), &entry.wrong) else { continue };
        checked += 1;
        if code == AT_A_CALL {
            problems.extend(check_at_a_call(code, wrong));
            continue;
        }
        let errors = match errors_of(wrong) {
            Ok(errors) => errors,
            Err(why) => {
                problems.push(format!("{code}: the wrong example {why}"));
                continue;
            }
        };
        println!("{code}: {errors:?}");
        let codes: BTreeSet<Option<u16>> = errors.iter().map(|(c, _)| *c).collect();
        let note = Some(Code::InCall.number());
        let own: BTreeSet<Option<u16>> = codes.iter().copied().filter(|c| code == Code::InCall || *c != note).collect();
        let ok =
            if code == Code::InCall { codes.contains(&note) } else { own == BTreeSet::from([Some(code.number())]) };
        if !ok {
            problems.push(format!("{code}: the wrong example gets {errors:#?}"));
        }
    }
    assert!(problems.is_empty(), "{}", problems.join("\n"));
    assert!(checked >= Code::ALL.len() - WITHOUT_EXAMPLES.len(), "only {checked} wrong examples");
}

/// A generic kernel whose instance is called but not listed: the kernel compiles, and its
/// expansion gives rustc the message, with its code, that rustc reports at the call.
fn check_at_a_call(code: Code, wrong: &str) -> Option<String> {
    match errors_of(wrong) {
        Ok(errors) if errors.is_empty() => {}
        other => return Some(format!("{code}: the wrong example's kernel should compile: {other:?}")),
    }
    let kernels = support::kernels_in(wrong).unwrap_or_default();
    let expanded: String = kernels.into_iter().map(|k| tessel_compiler::expand(k.attr, k.item).to_string()).collect();
    let said = expanded.contains("on_unimplemented") && expanded.contains(&format!("[{code}] "));
    (!said).then(|| format!("{code}: the expansion carries no `on_unimplemented` message with the code"))
}

#[test]
fn each_right_kernel_compiles() {
    let mut problems = Vec::new();
    for entry in index() {
        let Some(right) = &entry.right else { continue };
        let title = first_line(&entry.text).to_string();
        match errors_of(right) {
            Ok(errors) if errors.is_empty() => {}
            Ok(errors) => problems.push(format!("{title}: the right example gets {errors:#?}")),
            Err(why) => problems.push(format!("{title}: the right example {why}")),
        }
        let kernels = support::kernels_in(right).unwrap_or_default();
        let modules = support::modules_in(right).unwrap_or_default();
        let expanded = kernels.into_iter().map(|k| tessel_compiler::expand(k.attr, k.item));
        let expanded = expanded.chain(modules.into_iter().map(|m| tessel_compiler::module::expand(m.attr, m.item)));
        if expanded.map(|tokens| tokens.to_string()).any(|text| text.contains("compile_error")) {
            problems.push(format!("{title}: the right example passes checking but not the back end"));
        }
    }
    assert!(problems.is_empty(), "{}", problems.join("\n"));
}
