//! What `#[kernel]` costs a build: the front end (`tessel_compiler::compile`) and the full
//! expansion (`tessel_compiler::expand`: checking, PTX, host items) on the largest pass kernel,
//! the median of 20 runs each.
//!
//! The budget is 20 ms for both together in a release build
//! (`cargo test --release -p tessel-compiler-tests --test compiler compile_time:: -- --nocapture`); a debug
//! build, whose proc macros run unoptimized only in this test, gets ten times that.

use crate::ui_support as support;

use std::time::{Duration, Instant};

const RUNS: usize = 20;

fn median(mut times: Vec<Duration>) -> Duration {
    times.sort();
    times[times.len() / 2]
}

fn time(mut f: impl FnMut()) -> Duration {
    f(); // warm up
    median(
        (0..RUNS)
            .map(|_| {
                let start = Instant::now();
                f();
                start.elapsed()
            })
            .collect(),
    )
}

#[test]
fn largest_kernel_compiles_quickly() {
    let kernel = support::case_files("pass")
        .iter()
        .flat_map(|p| support::kernels_of(p))
        .max_by_key(|k| k.item.to_string().len())
        .expect("pass kernels");
    let size = kernel.item.to_string().len();
    assert!(
        tessel_compiler::compile(kernel.attr.clone(), kernel.item.clone()).is_ok(),
        "`{}` does not compile",
        kernel.name
    );
    let front = time(|| {
        let _ = tessel_compiler::compile(kernel.attr.clone(), kernel.item.clone());
    });
    let full = time(|| {
        let _ = tessel_compiler::expand(kernel.attr.clone(), kernel.item.clone());
    });
    let budget = Duration::from_millis(if cfg!(debug_assertions) { 200 } else { 20 });
    println!(
        "`{}` ({size} bytes of tokens), median of {RUNS}: compile {front:.2?}, expand {full:.2?}, \
         together {:.2?} (budget {budget:?}, {} build)",
        kernel.name,
        front + full,
        if cfg!(debug_assertions) { "debug" } else { "release" }
    );
    assert!(front + full < budget, "compile + expand took {:?}, over {budget:?}", front + full);
}
