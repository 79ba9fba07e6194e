//! Mutation test of the front end: thousands of kernels derived from the pass cases
//! (`tests/ui/pass`) by deleting, swapping, replacing and inserting tokens at every depth, handed to
//! `tessel_compiler::compile` directly (not through rustc), with a fixed seed; and the same for the
//! `#[kernels]` modules of the pass cases (kernel functions and their calls), handed to
//! `tessel_compiler::module::compile`.
//!
//! For every mutant:
//! - the compiler does not panic (`catch_unwind`), and neither does the full expansion of a mutant
//!   it accepts (`tessel_compiler::expand`), which also reports no error: the back ends cannot fail
//!   on a checked kernel;
//! - every error of a rejected mutant points inside the mutant: a span of its text, on its lines,
//!   never the call site. Mutants whose function is no longer a Rust item are not checked for
//!   spans: rustc rejects them before `#[kernel]` runs;
//! - every error of a rejected mutant starts with a code of the error index (`[T0001] ..`,
//!   `tessel_compiler::codes`).
//!
//! Mutants are printed and parsed back from a string (`"\n#[kernel(ATTR)]\nITEM\n"`) so that, with
//! proc-macro2's `span-locations`, their spans have lines and columns.
//!
//! How many: `cargo test` (debug) makes about 9,500 mutants. `TESSEL_MUTATION_SCALE=n` makes n
//! times as many (the same ones first: each kernel's generator runs on), and CI runs
//! `TESSEL_MUTATION_SCALE=12 cargo test --release -p tessel-compiler-tests --test compiler mutation::`: over
//! 100,000 mutants.
//! `TESSEL_MUTATION_SEED` explores other mutants.

use crate::ui_support as support;

use proc_macro2::{Group, TokenStream, TokenTree};
use std::cell::RefCell;
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::path::PathBuf;
use tessel_compiler::codes::Code;

/// Mutants made from each pass kernel.
const MUTANTS_PER_KERNEL: usize = 150;
/// Mutants made from each `#[kernels]` module of the pass cases.
const MUTANTS_PER_MODULE: usize = 600;
const SEED: u64 = 0x7e55_e1c0_ffee_2024;

/// Tokens that tend to matter to the compiler: edge-case numbers, dtypes, layouts, transforms, the
/// language's names, punctuation and empty groups.
const INTERESTING: &str = "0 1 2 3 7 8 16 24 32 40 48 63 64 65 96 128 255 256 257 272 512 4096 65536 \
    2147483648 1000000000000 4611686018427387904 99999999999999999999 0.0 1.5 1e40 0u8 64i32 1.0f32 true false \
    u8 i8 i4 u16 i32 u32 i64 f32 f16 bf16 tf32 f8e4m3 f8e5m2 bool f64 usize \
    Acc Smem Regs Barrier Gmem GmemMut Layout Wgmma WgmmaRow WgmmaCol Strided Splat MmaAcc MmaLhs MmaRhs \
    Swizzle128 Swizzle64 Swizzle32 NoSwizzle Swizzle Transposed Tiled wg x M K N STAGES _ \
    let mut const for in if else while match return fn self \
    , ; : :: . .. = == != += + - * / % << >> & && | || ! < > <= as \
    run_scoped run_state wgmma wgmma_wait mma copy_gmem_to_smem copy_smem_to_gmem barrier_wait \
    barrier_arrive semaphore_signal semaphore_wait commit_smem set_max_registers load store at t slice \
    transpose cast sum max min \
    broadcast to_layout layout_cast splat iota exp2 fma from_regs tile collective_axes multicast \
    program_id num_programs warpgroup_id cluster_rank grid warpgroups warpgroup_axis cluster \
    max_registers consts () [] {} (0) [0] [64, 64] [.., 0..64] <f32> (1, 2) \"s\" 'c'";

/// The fixed seed, or `TESSEL_MUTATION_SEED` to explore other mutants.
fn seed() -> u64 {
    std::env::var("TESSEL_MUTATION_SEED").ok().and_then(|s| s.parse().ok()).unwrap_or(SEED)
}

/// How many times the default number of mutants to make: `TESSEL_MUTATION_SCALE`, else 1.
fn scale() -> usize {
    match std::env::var("TESSEL_MUTATION_SCALE") {
        Err(_) => 1,
        Ok(s) => s.parse().ok().filter(|&n| n >= 1).unwrap_or_else(|| panic!("TESSEL_MUTATION_SCALE={s}: not a count")),
    }
}

/// A tiny xorshift generator: deterministic, and no new dependency.
struct XorShift(u64);

impl XorShift {
    fn next(&mut self) -> u64 {
        let mut x = self.0;
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        self.0 = x;
        x
    }

    fn below(&mut self, n: usize) -> usize {
        (self.next() % n.max(1) as u64) as usize
    }
}

/// The place of a token tree: the indices of the groups around it, then its own index.
type Path = Vec<usize>;

/// Every token tree of a stream, at every depth, with its path.
fn positions(ts: &TokenStream, prefix: &mut Path, out: &mut Vec<(Path, TokenTree)>) {
    for (i, tt) in ts.clone().into_iter().enumerate() {
        prefix.push(i);
        out.push((prefix.clone(), tt.clone()));
        if let TokenTree::Group(g) = &tt {
            positions(&g.stream(), prefix, out);
        }
        prefix.pop();
    }
}

/// Applies `f` to the token list that holds `path`'s last index.
fn edit(ts: &TokenStream, path: &[usize], f: &mut dyn FnMut(&mut Vec<TokenTree>, usize)) -> TokenStream {
    let mut trees: Vec<TokenTree> = ts.clone().into_iter().collect();
    match path {
        [] => {}
        [i] => f(&mut trees, *i),
        [i, rest @ ..] => {
            if let Some(TokenTree::Group(g)) = trees.get(*i) {
                let mut inner = Group::new(g.delimiter(), edit(&g.stream(), rest, f));
                inner.set_span(g.span());
                trees[*i] = TokenTree::Group(inner);
            }
        }
    }
    trees.into_iter().collect()
}

/// The token trees of a kernel (and the interesting ones), sorted by kind so that a replacement
/// can keep the kind: a name for a name, a literal for a literal, keeping more mutants valid Rust.
struct Pool {
    all: Vec<TokenTree>,
    by_kind: [Vec<TokenTree>; 4],
}

fn kind(tt: &TokenTree) -> usize {
    match tt {
        TokenTree::Ident(_) => 0,
        TokenTree::Literal(_) => 1,
        TokenTree::Punct(_) => 2,
        TokenTree::Group(_) => 3,
    }
}

impl Pool {
    fn new(trees: impl IntoIterator<Item = TokenTree>) -> Pool {
        let mut pool = Pool { all: Vec::new(), by_kind: Default::default() };
        for tt in trees {
            pool.by_kind[kind(&tt)].push(tt.clone());
            pool.all.push(tt);
        }
        pool
    }

    /// A tree of the same kind as `like` (three times in four), else any tree.
    fn pick(&self, like: &TokenTree, rng: &mut XorShift) -> TokenTree {
        let same = &self.by_kind[kind(like)];
        let from = if same.is_empty() || rng.below(4) == 0 { &self.all } else { same };
        from[rng.below(from.len())].clone()
    }
}

/// One random mutation of `ts`, whose trees are `places`: delete a tree, swap it with the next,
/// replace it by a tree of the same kernel or an interesting token, or insert an interesting token.
fn mutate(
    ts: &TokenStream,
    places: &[(Path, TokenTree)],
    kernel: &Pool,
    odd: &Pool,
    rng: &mut XorShift,
) -> TokenStream {
    if places.is_empty() {
        return odd.all[rng.below(odd.all.len())].clone().into();
    }
    let (path, tree) = &places[rng.below(places.len())];
    // Replacements keep most mutants valid Rust, so they are the most frequent; two in three take
    // a tree of the kernel, the others an interesting token.
    let op = match rng.below(20) {
        0..=2 => Op::Delete,
        3..=5 => Op::Swap,
        6..=16 => Op::Replace,
        _ => Op::Insert,
    };
    let replacement = if op == Op::Insert || rng.below(3) == 0 { odd.pick(tree, rng) } else { kernel.pick(tree, rng) };
    edit(ts, path, &mut |trees, i| match op {
        Op::Delete => {
            trees.remove(i);
        }
        Op::Swap if i + 1 < trees.len() => trees.swap(i, i + 1),
        Op::Swap | Op::Replace => trees[i] = replacement.clone(),
        Op::Insert => trees.insert(i, replacement.clone()),
    })
}

#[derive(Clone, Copy, PartialEq)]
enum Op {
    Delete,
    Swap,
    Replace,
    Insert,
}

fn places_of(ts: &TokenStream) -> Vec<(Path, TokenTree)> {
    let mut places = Vec::new();
    positions(ts, &mut Vec::new(), &mut places);
    places
}

/// What became of the mutants.
#[derive(Default)]
struct Tally {
    run: usize,
    accepted: usize,
    rejected: usize,
    /// Mutants whose function syn cannot read (rustc would not call the macro).
    not_rust: usize,
    /// Mutants whose text does not lex back (e.g. a `'` that became a lifetime).
    unlexable: usize,
    panics: Vec<String>,
    bad_spans: Vec<String>,
    /// Mutants the front end accepted but the back end rejected: internal errors.
    back_end_errors: Vec<String>,
    /// Errors whose message does not start with a code of the error index (`[T0001] ..`).
    uncoded: Vec<String>,
}

thread_local! {
    /// The last panic of this thread, recorded by the hook of `quiet_panics`.
    static LAST_PANIC: RefCell<Option<String>> = const { RefCell::new(None) };
}

/// Records panics instead of printing each one.
fn quiet_panics() {
    std::panic::set_hook(Box::new(|info| {
        let at = info.location().map(|l| format!("{}:{}", l.file(), l.line())).unwrap_or_default();
        let msg = info
            .payload()
            .downcast_ref::<&str>()
            .map(|s| s.to_string())
            .or_else(|| info.payload().downcast_ref::<String>().cloned())
            .unwrap_or_default();
        LAST_PANIC.with(|p| *p.borrow_mut() = Some(format!("{msg} at {at}")));
    }));
}

fn last_panic() -> String {
    LAST_PANIC.with(|p| p.borrow_mut().take()).unwrap_or_default()
}

/// One mutant of a kernel: one mutation, or two (a third of the time, the second on the result),
/// in the attribute (one time in six) or the function.
fn mutant_of(
    k: &support::Kernel,
    attr_places: &[(Path, TokenTree)],
    item_places: &[(Path, TokenTree)],
    kernel: &Pool,
    odd: &Pool,
    rng: &mut XorShift,
) -> (TokenStream, TokenStream) {
    let (mut attr, mut item) = (k.attr.clone(), k.item.clone());
    for round in 0..1 + rng.below(3) / 2 {
        let in_attr = rng.below(6) == 0;
        let (ts, original) = if in_attr { (&mut attr, attr_places) } else { (&mut item, item_places) };
        let places = if round == 0 { original.to_vec() } else { places_of(ts) };
        *ts = mutate(ts, &places, kernel, odd, rng);
    }
    (attr, item)
}

/// Splits `#[kernel(ATTR)] ITEM` parsed from `text` back into the attribute's tokens and the item.
fn split(text: &str) -> Option<(TokenStream, TokenStream)> {
    let mut trees = text.parse::<TokenStream>().ok()?.into_iter();
    let (Some(TokenTree::Punct(_)), Some(TokenTree::Group(attr))) = (trees.next(), trees.next()) else { return None };
    let attr = match attr.stream().into_iter().nth(1) {
        Some(TokenTree::Group(args)) => args.stream(),
        _ => return None,
    };
    Some((attr, trees.collect()))
}

/// Runs one mutant (its text, and the attribute and item read back from it) through the compiler
/// and records what happened. When `may_retry` and the function is no Rust `fn`, records nothing
/// and returns false: the caller makes another mutant.
fn run_mutant(text: &str, attr: TokenStream, item: TokenStream, tally: &mut Tally, may_retry: bool) -> bool {
    let result = catch_unwind(AssertUnwindSafe(|| tessel_compiler::compile(attr.clone(), item.clone())));
    // A function syn cannot read is no Rust item, and rustc would reject it before `#[kernel]` runs:
    // only its panics matter.
    let expand = || tessel_compiler::expand(attr, item);
    record(text, result.map(|r| r.map(|_| ())), "goes on a plain `fn`", expand, None, tally, may_retry)
}

/// Records what the compiler's front end (`result`) and, for an accepted mutant, its whole
/// expansion (`expand`) did with a mutant; an error containing `not_rust_when` says the item is
/// no Rust item (see `run_mutant`). An error may also point into `libraries`, the source of the
/// libraries a module uses (an error in a library function's body, with a note at the call).
fn record(
    text: &str,
    result: std::thread::Result<Result<(), syn::Error>>,
    not_rust_when: &str,
    expand: impl FnOnce() -> TokenStream,
    libraries: Option<&str>,
    tally: &mut Tally,
    may_retry: bool,
) -> bool {
    let not_rust =
        matches!(&result, Ok(Err(errors)) if errors.clone().into_iter().any(|e| e.to_string().contains(not_rust_when)));
    if not_rust && may_retry {
        return false;
    }
    tally.run += 1;
    match result {
        Err(_) => tally.panics.push(format!("front end: {}\n{text}", last_panic())),
        Ok(Ok(())) => {
            tally.accepted += 1;
            match catch_unwind(AssertUnwindSafe(expand)) {
                Err(_) => tally.panics.push(format!("back end: {}\n{text}", last_panic())),
                Ok(out) if out.to_string().contains("compile_error") => tally.back_end_errors.push(text.to_string()),
                Ok(_) => {}
            }
        }
        Ok(Err(errors)) if not_rust => {
            tally.rejected += 1;
            tally.not_rust += 1;
            check_codes(&errors, text, tally);
        }
        Ok(Err(errors)) => {
            tally.rejected += 1;
            check_spans(&errors, text.lines().count(), text, libraries, tally);
            check_codes(&errors, text, tally);
        }
    }
    true
}

/// Every error lies on the mutant's lines (line 1 is empty: the call site reads as line 1), or in
/// the source of its `libraries`.
fn check_spans(errors: &syn::Error, lines: usize, text: &str, libraries: Option<&str>, tally: &mut Tally) {
    for e in errors.clone() {
        let span = e.span();
        let (start, end) = (span.start(), span.end());
        let in_libraries = libraries.is_some_and(|file| span.file() == file);
        let inside = span.file() != "<unspecified>"
            && (in_libraries || (start.line >= 2 && end.line <= lines))
            && (start.line, start.column) <= (end.line, end.column);
        if !inside {
            let first = e.to_string().lines().next().unwrap_or_default().to_string();
            tally
                .bad_spans
                .push(format!("{}:{}..{}:{} `{first}`\n{text}", start.line, start.column, end.line, end.column));
        }
    }
}

/// Records each error whose first line does not start with `[Txxxx] `, a code of the error index.
fn check_codes(errors: &syn::Error, text: &str, tally: &mut Tally) {
    for e in errors.clone() {
        let message = e.to_string();
        let coded = Code::ALL.iter().any(|c| message.starts_with(&format!("[{c}] ")));
        if !coded {
            let first = message.lines().next().unwrap_or_default().to_string();
            tally.uncoded.push(format!("`{first}`\n{text}"));
        }
    }
}

/// The mutants of one kernel (the `index`-th of the pass cases, which seeds its generator).
fn mutate_kernel(index: u64, k: &support::Kernel, odd: &Pool, tally: &mut Tally) {
    let mut rng = XorShift(seed() ^ (index + 1).wrapping_mul(0x9e37_79b9_7f4a_7c15));
    let original = format!("\n#[kernel({})]\n{}\n", k.attr, k.item);
    let (attr_places, item_places) = (places_of(&k.attr), places_of(&k.item));
    let kernel = Pool::new(attr_places.iter().chain(&item_places).map(|(_, t)| t.clone()));
    for _ in 0..MUTANTS_PER_KERNEL * scale() {
        // Most random edits break Rust's syntax, and rustc rejects such a function before
        // `#[kernel]` sees it: a few tries for a mutant that is still a Rust `fn`.
        for attempt in 0..4 {
            let (attr, item) = mutant_of(k, &attr_places, &item_places, &kernel, odd, &mut rng);
            let text = format!("\n#[kernel({attr})]\n{item}\n");
            if text == original {
                continue; // a swap of equal tokens, or a replacement by the same token
            }
            let Some((attr, item)) = split(&text) else {
                tally.unlexable += 1;
                continue;
            };
            if run_mutant(&text, attr, item, tally, attempt < 3) {
                break;
            }
        }
    }
}

/// Mutates the kernels of every `workers`-th pass file from `first` (token streams are not `Send`:
/// each thread reads its own files).
fn mutate_files(files: &[PathBuf], first: usize, workers: usize) -> Tally {
    let odd = Pool::new(INTERESTING.parse::<TokenStream>().expect("interesting tokens"));
    let mut tally = Tally::default();
    for (i, path) in files.iter().enumerate().skip(first).step_by(workers) {
        for (j, k) in support::kernels_of(path).iter().enumerate() {
            mutate_kernel((i * 100 + j) as u64, k, &odd, &mut tally);
        }
    }
    tally
}

impl Tally {
    fn merge(&mut self, other: Tally) {
        self.run += other.run;
        self.accepted += other.accepted;
        self.rejected += other.rejected;
        self.not_rust += other.not_rust;
        self.unlexable += other.unlexable;
        self.panics.extend(other.panics);
        self.bad_spans.extend(other.bad_spans);
        self.back_end_errors.extend(other.back_end_errors);
        self.uncoded.extend(other.uncoded);
    }
}

#[test]
fn mutants_never_panic_and_point_inside() {
    quiet_panics();
    let started = std::time::Instant::now();
    let files = support::case_files("pass");
    let workers = std::thread::available_parallelism().map_or(1, |n| n.get()).min(4);
    let mut tally = Tally::default();
    std::thread::scope(|s| {
        let handles: Vec<_> = (0..workers)
            .map(|w| {
                s.spawn({
                    let files = &files;
                    move || mutate_files(files, w, workers)
                })
            })
            .collect();
        for h in handles {
            tally.merge(h.join().expect("a mutation worker died"));
        }
    });
    let _ = std::panic::take_hook();
    println!(
        "{} mutants (seed {:#x}, scale {}) in {:.1?}: {} accepted, {} rejected ({} of them not Rust items); {} \
         did not lex back; {} accepted by the front end but rejected by the back end",
        tally.run,
        seed(),
        scale(),
        started.elapsed(),
        tally.accepted,
        tally.rejected,
        tally.not_rust,
        tally.unlexable,
        tally.back_end_errors.len()
    );
    assert!(tally.run >= 5000 * scale(), "only {} mutants", tally.run);
    tally.assert_clean("kernel");
}

/// Splits `#[kernels] ITEM` parsed from `text` back into the module.
fn split_module(text: &str) -> Option<TokenStream> {
    let mut trees = text.parse::<TokenStream>().ok()?.into_iter();
    let (Some(TokenTree::Punct(_)), Some(TokenTree::Group(_))) = (trees.next(), trees.next()) else { return None };
    Some(trees.collect())
}

/// [`run_mutant`] for a `#[kernels]` module: its functions and every one of its kernels, with the
/// libraries its attribute `attr` loads (unmutated).
fn run_module_mutant(text: &str, item: TokenStream, attr: TokenStream, tally: &mut Tally, may_retry: bool) -> bool {
    let result = catch_unwind(AssertUnwindSafe(|| tessel_compiler::module::compile(attr.clone(), item.clone())));
    // A module syn cannot read is no Rust item: rustc would reject it before `#[kernels]` runs.
    // The libraries' tokens (in `attr`) come from the case file's source.
    let libraries = source_of(attr.clone());
    let expand = || tessel_compiler::module::expand(attr, item);
    record(
        text,
        result.map(|r| r.map(|_| ())),
        "goes on a module of kernels",
        expand,
        libraries.as_deref(),
        tally,
        may_retry,
    )
}

/// The source file of the first of `tokens` that has one.
fn source_of(tokens: TokenStream) -> Option<String> {
    tokens.into_iter().find_map(|t| match t {
        TokenTree::Group(g) => source_of(g.stream()),
        other => Some(other.span().file()).filter(|file| file != "<unspecified>"),
    })
}

/// The mutants of one module: one mutation, or two (a third of the time).
fn mutate_module(index: u64, m: &support::Module, odd: &Pool, tally: &mut Tally) {
    let mut rng = XorShift(seed() ^ (index + 1).wrapping_mul(0x2545_f491_4f6c_dd1d));
    let original = format!("\n#[kernels]\n{}\n", m.item);
    let places = places_of(&m.item);
    let module = Pool::new(places.iter().map(|(_, t)| t.clone()));
    for _ in 0..MUTANTS_PER_MODULE * scale() {
        for attempt in 0..4 {
            let mut item = m.item.clone();
            for round in 0..1 + rng.below(3) / 2 {
                let at = if round == 0 { places.clone() } else { places_of(&item) };
                item = mutate(&item, &at, &module, odd, &mut rng);
            }
            let text = format!("\n#[kernels]\n{item}\n");
            if text == original {
                continue;
            }
            let Some(item) = split_module(&text) else {
                tally.unlexable += 1;
                continue;
            };
            if run_module_mutant(&text, item, m.attr.clone(), tally, attempt < 3) {
                break;
            }
        }
    }
}

#[test]
fn module_mutants_never_panic_and_point_inside() {
    quiet_panics();
    let started = std::time::Instant::now();
    let odd = Pool::new(INTERESTING.parse::<TokenStream>().expect("interesting tokens"));
    let mut tally = Tally::default();
    let mut modules = 0;
    for (i, path) in support::case_files("pass").iter().enumerate() {
        for (j, m) in support::modules_of(path).iter().enumerate() {
            modules += 1;
            mutate_module((i * 100 + j) as u64, m, &odd, &mut tally);
        }
    }
    let _ = std::panic::take_hook();
    println!(
        "{} mutants of {modules} modules (seed {:#x}, scale {}) in {:.1?}: {} accepted, {} rejected ({} of them not \
         Rust items); {} did not lex back; {} accepted by the front end but rejected by the back end",
        tally.run,
        seed(),
        scale(),
        started.elapsed(),
        tally.accepted,
        tally.rejected,
        tally.not_rust,
        tally.unlexable,
        tally.back_end_errors.len()
    );
    assert!(modules > 0 && tally.run >= 500 * scale(), "only {} mutants of {modules} modules", tally.run);
    tally.assert_clean("module");
}

impl Tally {
    /// No mutant panicked, every error points inside its `item` (kernel or module), and no mutant
    /// that passed checking failed in a back end: the back ends cannot fail on a checked kernel,
    /// so such a failure is a check missing from `typeck` or a bug of the back end.
    fn assert_clean(&self, item: &str) {
        let show = |v: &[String]| v.iter().take(5).cloned().collect::<Vec<_>>().join("\n-----\n");
        assert!(self.panics.is_empty(), "{} mutants panicked, e.g.:\n{}", self.panics.len(), show(&self.panics));
        assert!(
            self.bad_spans.is_empty(),
            "{} errors point outside their {item}, e.g.:\n{}",
            self.bad_spans.len(),
            show(&self.bad_spans)
        );
        assert!(
            self.back_end_errors.is_empty(),
            "{} checked mutants failed in the back end, e.g.:\n{}",
            self.back_end_errors.len(),
            show(&self.back_end_errors)
        );
        assert!(self.uncoded.is_empty(), "{} errors have no code, e.g.:\n{}", self.uncoded.len(), show(&self.uncoded));
    }
}
